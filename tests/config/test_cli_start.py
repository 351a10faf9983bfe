"""The shared start of `remecli <command>`: a usage error, a bad setting and a missing working dir
each end in one line on stderr and the command's exit code; help exits 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from remecli.__main__ import main
from remecli.surfaces.cli.start import settings_and_working_dir, settings_or_exit_code


@pytest.fixture(autouse=True)
def plain_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No REME_* variable or .env of the machine running the tests leaks in."""
    for name in [n for n in os.environ if n.startswith("REME_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_a_usage_error_prints_it_with_the_usage_and_help_exits_0(capsys) -> None:
    assert main(["links", "x", "--bad"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("remecli links: No such option") and "--bad" in err
    assert err.endswith(" (see remecli links --help)\n") and err.count("\n") == 1
    assert main(["links", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: remecli links [OPTIONS] [PATH] [key=value]")
    assert main(["job"]) == 0
    assert "jobs:" in capsys.readouterr().err


def test_a_setting_written_as_an_option_says_how_settings_are_written(capsys) -> None:
    assert main(["--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("remecli: No such option") and err.count("\n") == 1
    assert err.rstrip().endswith(
        "; settings are key=value: remecli resume=last (or resume=ID from remecli sessions)"
    )
    assert main(["--theme"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("; settings are key=value: remecli theme=…")
    assert main(["--bad"]) == 2
    assert "settings are" not in capsys.readouterr().err  # no setting of that name


def test_a_bad_setting_is_one_line_and_exit_2(capsys) -> None:
    assert settings_or_exit_code(["llm.modle=x"], "remecli ingest") == 2
    err = capsys.readouterr().err
    assert err.startswith("remecli ingest: unknown setting 'llm.modle'") and err.count("\n") == 1
    assert settings_and_working_dir(["llm.modle=x"]) == 2
    assert capsys.readouterr().err.startswith("remecli: unknown setting 'llm.modle'")


def test_a_missing_working_dir_exits_1_and_an_existing_one_starts(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nowhere"
    assert settings_and_working_dir([f"working_dir={missing}"]) == 1
    assert capsys.readouterr().err == (
        f"remecli: no working dir at {missing}; run remecli there first or pass working_dir=PATH\n"
    )
    (tmp_path / "wd").mkdir()
    started = settings_and_working_dir([f"working_dir={tmp_path / 'wd'}"])
    assert not isinstance(started, int)
    settings, locations = started
    assert locations.root == (tmp_path / "wd").resolve()
    assert settings.working_dir == str(tmp_path / "wd")
