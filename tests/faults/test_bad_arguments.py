"""Every command fed a bad value, as a user types it (issue 39.8): one line on stderr saying what
to do, exit code 2 (usage) or 1, never a traceback, and nothing else done in its place (a
`dream --revert ''` used to run a whole dream)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.cli_process import run_remecli

NOT_UTF8 = b"\xff\xfe{not json"
# (arguments; @FILE@ is a file of invalid UTF-8, @DIR@ a folder, @DEEP@ 50,000 nested [), expected exit code, words of
# the message
CASES: list[tuple[list[str], int, str]] = [
    (["search", "q", "--max", "abc"], 2, "--max needs a whole number"),
    (["search", "q", "--since", "2025-13-45"], 2, "'--since'"),
    (["search", "q", "--source", "bogus"], 2, "is not one of"),
    (["search", ""], 2, "needs a query"),
    (["links", "MEMORY.md", "--depth", "0"], 2, "--depth must be at least 1"),
    (["links", "nosuch.md"], 1, "no note 'nosuch.md'"),
    (["memory", "history", ""], 1, "path: String should have at least 1 character"),
    (["memory", "restore", "", "1"], 1, "path: String should have at least 1 character"),
    (["memory", "restore", "MEMORY.md", "abc"], 2, "VERSION must be a number"),
    (["dream", "--show", ""], 2, "--show needs a run id"),
    (["dream", "--revert", ""], 2, "--revert needs a run id"),
    (["dream", "--approve", ""], 2, "--approve needs a run id"),
    (["dream", "--reject", ""], 2, "--reject needs a run id"),
    (["dream", "--list", "--show", "20250101T000000-abcd"], 2, "pick one"),
    (["dream", "date=2025-99-99"], 2, "date must be YYYY-MM-DD"),
    (["ingest", "/nonexistent/file.md"], 2, "no such file or folder"),
    (["ingest", ""], 2, "PATH is empty"),
    (["ingest", "@DIR@"], 2, "the folder has no files"),
    (["ingest", "--yes"], 2, "--yes goes with --prune"),
    (
        ["job", "memory_record", "--session-id", "s1", "--messages", "@/nonexistent"],
        2,
        "cannot read /nonexistent",
    ),
    (["job", "memory_record", "--session-id", "s1", "--messages", "@@FILE@"], 2, "not UTF-8 text"),
    (["job", "memory_write", "--path", "x.md", "--content", "@@DIR@"], 2, "Is a directory"),
    (["job", "memory_read", "--path", "../x"], 1, "uses '..'"),
    (["access-log", "--tail", "-1"], 2, "--tail must be at least 1"),
    (["token", "add", "bad/name", "--scope", "read"], 1, "token name 'bad/name' refused"),
    (["token", "add", "x"], 2, "Missing option '--scope'. Choose from: read, write, admin"),
    (["import", "@FILE@"], 1, "invalid start byte"),
    (["serve", "--port", "70000"], 2, "is not a TCP port"),
    (["memories", "list", "--limit", "abc"], 2, "--limit needs a whole number"),
    (["where", "llm.max_retries=abc"], 2, "invalid setting 'llm.max_retries'"),
    (["where", "notakey=1"], 2, "unknown setting 'notakey'"),
    (["where", "config=@FILE@"], 2, "is not UTF-8 text"),
    (["nosuchcommand"], 2, "is not a command"),
    (["job", "memory_record", "--session-id", "s1", "--messages", "@@DEEP@"], 1, "too deeply"),
    (["import", "@DEEP@"], 1, "nested too deeply to read"),
    (["memories", "summarize", "@DEEP@", "--user", "a"], 1, "nested too deeply to read"),
    (["-p", " ", "llm.base_url=http://127.0.0.1:9/v1"], 2, "-p got an empty question"),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("args", "code", "words"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_a_bad_value_gets_one_clear_line(
    tmp_path: Path, args: list[str], code: int, words: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(NOT_UTF8)
    (tmp_path / "empty").mkdir()
    (tmp_path / ".reme").mkdir()
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    places = {"@FILE@": bad, "@DIR@": tmp_path / "empty", "@DEEP@": deep}
    argv = [functools.reduce(lambda a, p: a.replace(p, str(places[p])), places, a) for a in args]
    settings = [] if args[0] == "nosuchcommand" else [f"working_dir={tmp_path / '.reme'}"]
    done = run_remecli(
        *argv, *settings, cwd=tmp_path, env={"HOME": str(tmp_path), "REMECLI_NO_DAEMON": "1"}
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, words in done.stderr) == (code, True), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Dream:" not in done.stdout  # a review option never falls back to a dream


def test_where_says_a_file_stands_where_the_memory_would_be(tmp_path: Path) -> None:
    """`remecli where working_dir=FILE` said 'not yet (created on first use)': it never could be."""
    taken = tmp_path / "notes.txt"
    taken.write_text("a file\n", encoding="utf-8")
    done = run_remecli("where", f"working_dir={taken}", cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "exists  no: a file is there, not a folder" in done.stdout, done.stdout
