"""The shared start of `remecli <command>`: usage, help, a bad setting and a missing working dir
each end in one line on stderr and the command's exit code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from remecli.surfaces.cli.start import (
    UsageError,
    settings_or_exit_code,
    start_on_working_dir,
    usage_exit_code,
)

USAGE = "usage: remecli thing PATH"


@pytest.fixture(autouse=True)
def plain_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No REME_* variable or .env of the machine running the tests leaks in."""
    for name in [n for n in os.environ if n.startswith("REME_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def _parser(argv: list[str]):
    def parse() -> tuple[dict, list[str]]:
        if "--help" in argv:
            raise UsageError("")
        if "--bad" in argv:
            raise UsageError("unknown option --bad")
        return {"path": argv[0]}, [a for a in argv if "=" in a]

    return parse


def test_a_usage_error_prints_it_with_the_usage_and_help_exits_0(capsys) -> None:
    assert start_on_working_dir(_parser(["x", "--bad"]), USAGE) == 2
    assert capsys.readouterr().err == f"unknown option --bad\n{USAGE}\n"
    assert start_on_working_dir(_parser(["--help"]), USAGE) == 0
    assert capsys.readouterr().err == f"{USAGE}\n"
    assert usage_exit_code(UsageError("no"), USAGE, prefix="remecli: ", help_text="all") == 2
    assert capsys.readouterr().err == f"remecli: no\n{USAGE}\n"
    assert usage_exit_code(UsageError(""), USAGE, help_text="every job") == 0
    assert capsys.readouterr().err == "every job\n"


def test_a_bad_setting_is_one_line_and_exit_2(capsys) -> None:
    assert settings_or_exit_code(["llm.modle=x"], "remecli ingest") == 2
    err = capsys.readouterr().err
    assert err.startswith("remecli ingest: unknown setting 'llm.modle'") and err.count("\n") == 1
    assert start_on_working_dir(_parser(["x", "llm.modle=x"]), USAGE) == 2
    assert capsys.readouterr().err.startswith("remecli: unknown setting 'llm.modle'")


def test_a_missing_working_dir_exits_1_and_an_existing_one_starts(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nowhere"
    assert start_on_working_dir(_parser(["x", f"working_dir={missing}"]), USAGE) == 1
    assert capsys.readouterr().err == (
        f"remecli: no working dir at {missing}; run remecli there first or pass working_dir=PATH\n"
    )
    (tmp_path / "wd").mkdir()
    started = start_on_working_dir(_parser(["note.md", f"working_dir={tmp_path / 'wd'}"]), USAGE)
    assert not isinstance(started, int)
    options, settings, locations = started
    assert options == {"path": "note.md"} and locations.root == (tmp_path / "wd").resolve()
    assert settings.working_dir == str(tmp_path / "wd")
