"""The systemd user unit and the launchd agent that keep `remecli serve` running: valid files
(systemd-analyze verify, plistlib) whose command the real CLI accepts."""

from __future__ import annotations

import configparser
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.surfaces.cli_parse import parse_command_line

INTEGRATIONS = Path(__file__).resolve().parents[2] / "integrations"
UNIT = INTEGRATIONS / "systemd" / "remecli-serve.service"
PLIST = INTEGRATIONS / "launchd" / "dev.remecli.serve.plist"


def unit_sections() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def test_systemd_unit_runs_serve_and_stops_gently() -> None:
    unit = unit_sections()
    exec_start = shlex.split(unit["Service"]["ExecStart"])
    assert exec_start[0] == "%h/.local/bin/remecli"
    assert parse_command_line(shlex.join(["remecli", *exec_start[1:]])).info_name == "serve"
    assert unit["Service"]["KillSignal"] == "SIGTERM"  # summaries are flushed on SIGTERM
    assert int(unit["Service"]["TimeoutStopSec"]) >= 60
    assert unit["Service"]["UMask"] == "0077"
    assert unit["Install"]["WantedBy"] == "default.target"  # a user unit


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_unit_verifies(tmp_path: Path) -> None:
    # the real program instead of ~/.local/bin/remecli (verify checks that it exists)
    text = UNIT.read_text(encoding="utf-8").replace(
        "%h/.local/bin/remecli", f"{sys.executable} -m remecli"
    )
    unit = tmp_path / "remecli-serve.service"
    unit.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    problems = [line for line in done.stderr.splitlines() if unit.name in line]
    assert done.returncode == 0 and not problems, done.stderr


def test_launchd_agent_runs_serve() -> None:
    with PLIST.open("rb") as handle:
        agent = plistlib.load(handle)
    assert agent["Label"] == "dev.remecli.serve" and PLIST.stem == agent["Label"]
    program = agent["ProgramArguments"]
    assert program[0] == "/Users/YOU/.local/bin/remecli"
    assert parse_command_line(shlex.join(["remecli", *program[1:]])).info_name == "serve"
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["Umask"] == 0o077 and agent["ExitTimeOut"] >= 60
    assert all(
        not value.startswith("~") for value in program + [agent["StandardErrorPath"]]
    )  # launchd expands no ~
