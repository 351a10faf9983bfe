"""The command table (`remecli.cli`): help on every command, unknown commands named, exit codes,
`key=value` settings among the arguments, a closed pipe without a traceback, and the table
itself typed (objects, not strings; every callback takes exactly its parameters)."""

from __future__ import annotations

import inspect
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from remecli.__main__ import SIGPIPE_EXIT, main
from remecli.cli import COMMANDS, remecli
from remecli.surfaces.cli.base import SettingsCommand, split_settings
from tests.cli_process import run_remecli


def every_command(
    group: click.Group = remecli, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """(words after `remecli`, command) for every command of the table, groups included."""
    for name, command in group.commands.items():
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from every_command(command, (*path, name))


def _options(command: click.Command) -> list[str]:
    ctx = click.Context(command)
    return [
        max(p.opts, key=len)
        for p in command.get_params(ctx)
        if isinstance(p, click.Option) and p.name != "help"
    ]


HELP_CASES = [*(words for words, _ in every_command()), ("job", "memory_read")]


@pytest.mark.parametrize("words", HELP_CASES, ids=" ".join)
def test_help_on_every_command_names_its_options(words: tuple[str, ...], capsys) -> None:
    assert main([*words, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: remecli {' '.join(words)} ")
    command = remecli
    for word in words:
        command = command.get_command(click.Context(command), word)  # type: ignore[assignment]
    for option in _options(command):
        assert option in out, f"{option} missing from the help of {words}"
    if isinstance(command, SettingsCommand):
        assert "key=value" in out


def test_the_root_help_lists_every_command(capsys) -> None:
    assert main(["-h"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: remecli [config=NAME")
    for command in COMMANDS:
        assert f"\n  {command.name} " in out
    assert main(["config=cli", "-h"]) == 0 and capsys.readouterr().out == out  # -h anywhere
    assert main(["config=cli", "-p"]) == 2
    assert "-p needs a question" in capsys.readouterr().err


def test_an_unknown_command_is_named_with_the_known_ones_and_exits_2(tmp_path: Path) -> None:
    proc = run_remecli("nosuch", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "'nosuch'" in proc.stderr
    assert all(command.name in proc.stderr for command in COMMANDS)
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("argv", "named", "known"),
    [
        (["memory", "histroy", "MEMORY.md"], "'histroy'", "history, restore"),
        (
            ["memories", "fly"],
            "'fly'",
            "list, add, get, update, delete, retrieve, search, summarize, delete-all",
        ),
        (["-p", "hi", "search", "x"], "remecli search", "command first"),
    ],
)
def test_unknown_and_misplaced_commands_in_groups(argv, named, known, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert named in err and known in err and err.count("\n") == 1


def test_usage_errors_exit_2_failures_1_success_0(tmp_path: Path, capsys) -> None:
    wd = f"working_dir={tmp_path}"
    assert main(["links", "MEMORY.md", "--depth", "0", wd]) == 2
    assert "--depth must be at least 1" in capsys.readouterr().err
    assert main(["search", wd]) == 2  # no query
    assert "Missing argument 'QUERY'" in capsys.readouterr().err
    assert main(["memory", "history", "sessions/x.jsonl", wd]) == 1
    assert "is not a memory file" in capsys.readouterr().err
    assert main(["memory", "history", "MEMORY.md", wd]) == 0
    assert "no versions yet" in capsys.readouterr().out
    assert main(["sessions", "--json", wd]) == 0
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["memory"]) == 2  # a group alone: which command?
    assert "needs a command: history, restore" in capsys.readouterr().err


def test_settings_are_found_among_the_arguments() -> None:
    command = remecli.commands["memories"].commands["list"]  # type: ignore[attr-defined]
    ctx = click.Context(command)
    argv = ["--filter", "lang=go", "a.b=1", "--user=x", "--", "c=d"]
    assert split_settings(command, ctx, argv) == (
        ["a.b=1"],
        ["--filter", "lang=go", "--user=x", "--", "c=d"],
    )
    links = remecli.commands["links"]
    assert split_settings(links, click.Context(links), ["a=b.md", "x=1"]) == (["x=1"], ["a=b.md"])
    params = links.make_context("links", ["config=cli", "MEMORY.md", "--json"]).params
    assert params["path"] == "MEMORY.md" and params["setting_args"] == ["config=cli"]


def test_the_table_is_typed_objects_whose_callbacks_take_their_parameters() -> None:
    assert [command.name for command in COMMANDS] == list(remecli.commands)
    # 12 + studio, where, init, token, access-log, sync
    assert len(set(remecli.commands)) == len(COMMANDS) == 18
    for words, command in every_command():
        assert isinstance(command, click.Command) and command.callback is not None, words
        declared = {p.name for p in command.params}
        if isinstance(command, SettingsCommand):
            declared.add("setting_args")
        accepted = set(inspect.signature(command.callback).parameters) - {"ctx"}
        assert accepted == declared, words


def test_importing_the_table_loads_no_command_and_no_agent_runtime() -> None:
    code = (
        "import sys, remecli.cli; "
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('agentscope', 'openai') "
        "or m.startswith(('remecli.search', 'remecli.ops', 'remecli.ui', 'remecli.notes', "
        "'remecli.surfaces.cli.search', 'remecli.surfaces.commands'))); "
        "print(heavy); raise SystemExit(1 if heavy else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _search_argv(tmp_path: Path) -> list[str]:
    root = tmp_path / ".reme"
    (root / "memory").mkdir(parents=True)
    notes = "".join(f"- deploy step {n}: make ship target {n}\n" for n in range(200))
    (root / "MEMORY.md").write_text(f"# Deploy\n{notes}", encoding="utf-8")
    return [
        sys.executable,
        "-m",
        "remecli",
        "search",
        "deploy",
        "--json",
        f"working_dir={root}",
        "search.embedding.backend=none",
    ]


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    argv = _search_argv(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before remecli writes: every write is a broken pipe
    try:
        proc = subprocess.run(
            argv, stdout=write_end, stderr=subprocess.PIPE, text=True, env=env, timeout=120
        )
    finally:
        os.close(write_end)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr
    assert proc.returncode == SIGPIPE_EXIT
    # as a user types it: `remecli search deploy --json | head -1`
    shell = subprocess.run(
        shlex.join(argv) + " | head -1", shell=True, capture_output=True, text=True, env=env
    )
    assert shell.stdout == "[\n" and "Traceback" not in shell.stderr, shell.stderr


def test_a_mistyped_command_names_the_nearest_one(capsys) -> None:
    assert main(["searhc", "deploy"]) == 2
    err = capsys.readouterr().err
    assert "'searhc' is not a command (did you mean search?)" in err
    assert main(["memory", "histroy", "MEMORY.md"]) == 2
    assert "(did you mean history?)" in capsys.readouterr().err


def test_job_with_only_settings_lists_the_jobs(tmp_path: Path, capsys) -> None:
    assert main(["job", f"working_dir={tmp_path}", "search.embedding.backend=none"]) == 0
    listed = capsys.readouterr().err
    assert "memory_search" in listed and "memory_write_card" in listed


# Read only to pass on to the processes remecli starts (or to find them: PATH), never to
# configure remecli itself.
PASSED_THROUGH = {"REMECLI_TOOL_RUN", "PYTHONPATH", "PATH"}


def environment_variables_read() -> set[str]:
    """Every environment variable name the package's code reads (`environ.get("X")`,
    `environ["X"]`, `getenv("X")`, a `…_ENV = "X"` constant, the loader's ENV_VARS)."""
    import re

    from remecli.config.loader import ENV_VARS

    pattern = re.compile(
        r"""(?:environ(?:\.get)?\s*[\[(]\s*|getenv\(\s*|_ENV\s*=\s*)["']([A-Z][A-Z0-9_]+)["']"""
    )
    names = set(ENV_VARS)
    for path in Path(remecli_package_dir()).rglob("*.py"):
        names |= set(pattern.findall(path.read_text(encoding="utf-8")))
    return names - PASSED_THROUGH


def remecli_package_dir() -> str:
    import remecli as package

    return os.path.dirname(package.__file__)


def test_the_root_help_lists_every_environment_variable_and_plain_remecli(capsys) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    read = environment_variables_read()
    assert {"REME_PROJECT", "REME_SERVE_TOKEN", "XDG_DATA_HOME"} <= read  # the scan works
    missing = sorted(name for name in read if f"\n  {name} " not in out)
    assert not missing, f"read by the code, missing from --help: {missing}"
    assert "config=cli" not in out.split("Commands:")[0]  # the examples are `remecli …`


def test_a_question_without_p_is_shown_how_to_ask_it(tmp_path: Path) -> None:
    proc = run_remecli("what is 2+2", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "remecli -p 'what is 2+2'" in proc.stderr
    assert "Traceback" not in proc.stderr
