"""`remecli memories import | export | reindex` from the shell (the entry point, the fake server
for embeddings), on the embedded store and on PostgreSQL; the jobs through the job runner."""

from __future__ import annotations

import itertools
import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.vector.test_cli import runner

OPENAI_KEY = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s"
_tables = itertools.count()


@pytest.fixture(params=["local", "pgvector"])
def store(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "pgvector":
        dsn = request.getfixturevalue("pg_dsn")
        yield {"backend": "pgvector", "dsn": dsn, "table": f"bulk_cli_{next(_tables)}"}
    else:
        yield {"backend": "local"}


def write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    return path


def test_import_export_reindex_round_trip(
    fake_ai, tmp_path: Path, store, capsys, monkeypatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run = runner(fake_ai, home, store, capsys, monkeypatch)
    lines: list[Any] = [{"content": f"garden fact {k}", "topic": "garden"} for k in range(40)]
    lines += [
        {"content": "garden fact 3"},  # a duplicate of line 4
        {"content": f"token {OPENAI_KEY}"},
        {"content": "Build with make", "task_name": "build"},
    ]
    source = write_lines(tmp_path / "in.jsonl", lines)
    done = run("import", str(source), "--user", "alice", "--batch-size", "16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported 43 memories: 42 added, 1 already stored"
    listed = run("list", "--user", "alice", "--limit", "100", "--json")
    alice = json.loads(listed.stdout)
    assert len(alice) == 41
    assert {m["metadata"].get("topic") for m in alice} == {"garden", None}
    assert any(m["content"] == "token [REDACTED:openai_key]" for m in alice)
    assert OPENAI_KEY not in listed.stdout
    build = json.loads(run("list", "--task", "build", "--json").stdout)
    assert [m["content"] for m in build] == ["Build with make"]

    exported = tmp_path / "out.jsonl"
    done = run("export", str(exported))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"exported 42 memories to {exported}"
    assert stat.S_IMODE(exported.stat().st_mode) == 0o600
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert [r["content"] for r in rows[:3]] == ["garden fact 0", "garden fact 1", "garden fact 2"]

    # what export wrote imports as it was, into another store
    other = tmp_path / "other"
    other.mkdir()
    moved = {**store, "table": store["table"] + "_b"} if "table" in store else store
    again = runner(fake_ai, other, moved, capsys, monkeypatch)
    done = again("import", str(exported))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported 42 memories: 42 added, 0 already stored"
    back = json.loads(again("list", "--user", "alice", "--limit", "100", "--json").stdout)
    originals = {m["memory_id"]: m for m in alice}
    assert {m["memory_id"] for m in back} == set(originals)
    for memory in back:
        for key in ("content", "time_created", "metadata", "memory_target"):
            assert memory[key] == originals[memory["memory_id"]][key]

    done = run("reindex", "--batch-size", "10")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "re-embedded 42 memories with api/fake-embedding (64-d)"
    found = json.loads(run("retrieve", "garden fact 17", "--user", "alice", "--json").stdout)
    assert found["memories"][0]["content"] == "garden fact 17"


def test_import_names_the_line_that_is_wrong(fake_ai, tmp_path: Path, capsys, monkeypatch) -> None:
    run = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)
    source = tmp_path / "bad.jsonl"
    source.write_text('{"content": "fine"}\n{"content": "fine too"\n', encoding="utf-8")
    done = run("import", str(source), "--user", "alice")
    assert done.returncode == 1
    assert "line 2 is not JSON" in done.stderr
    whose = write_lines(tmp_path / "whose.jsonl", [{"content": "a"}, {"content": "b"}])
    done = run("import", str(whose))
    assert done.returncode == 1
    assert "memory 1: a memory needs exactly one of user_name, task_name, tool_name" in done.stderr
    assert run("list", "--json").stdout.strip() == "[]"
    done = run("import", str(whose), "--task", "notes", "--json")
    totals = json.loads(done.stdout)
    assert (totals["count"], totals["added"], len(totals["memory_ids"])) == (2, 2, 2)
