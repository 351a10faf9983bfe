"""`remecli memories …` in a real process, against the fake server (and each store backend)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def fake_env(fake: Any) -> dict[str, str]:
    return {
        "REME_EMBEDDING_API_KEY": "sk-test",
        "REME_EMBEDDING_BASE_URL": fake.base_url,
        "REME_EMBEDDING_MODEL": "fake-embedding",
        "REME_LLM_API_KEY": "sk-test",
        "REME_LLM_BASE_URL": fake.base_url,
    }


def runner(fake: Any, working_dir: Path, store: dict[str, Any], capsys: Any, monkeypatch: Any):
    """Runs `remecli memories …` in this process (the entry point `main`), env pointing at the
    fake server; returns (exit code, stdout, stderr)."""
    from remecli.__main__ import main

    for key, value in fake_env(fake).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(working_dir)
    flags = []
    if store["backend"] == "pgvector":
        flags = ["--store", "pgvector", "--dsn", store["dsn"], "--table", store["table"]]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = main(["memories", *args, *flags, f"working_dir={working_dir}"])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    return run


def test_the_entry_point_runs_in_its_own_process(fake_ai, tmp_path) -> None:
    env = {**os.environ, **fake_env(fake_ai)}
    command = [
        sys.executable,
        "-m",
        "remecli",
        "memories",
        "add",
        "Alice likes tea",
        "--user",
        "alice",
        "--json",
        f"working_dir={tmp_path}",
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == "Alice likes tea"


def test_memories_commands_round_trip(
    fake_ai, tmp_path, backend_config, capsys, monkeypatch
) -> None:
    run = runner(fake_ai, tmp_path, backend_config, capsys, monkeypatch)
    added = run("add", "Alice prefers tabs over spaces", "--user", "alice", "--json")
    assert added.returncode == 0, added.stderr
    node = json.loads(added.stdout)
    assert (node["memory_type"], node["memory_target"]) == ("personal", "alice")
    assert run("add", "Alice drinks green tea", "--user", "alice").returncode == 0
    assert run("add", "bash: use timeout=600", "--tool", "bash").returncode == 0

    listed = json.loads(run("list", "--user", "alice", "--sort", "content", "--json").stdout)
    assert [n["content"] for n in listed] == [
        "Alice drinks green tea",
        "Alice prefers tabs over spaces",
    ]
    typo = run("list", "--user", "alice", "--sort", "contnet")  # no memory has it: not a sort
    assert typo.returncode == 2 and "no memory listed has 'contnet'" in typo.stderr
    assert typo.stdout == ""
    text = run("list", "--tool", "bash").stdout
    assert "[tool:bash" in text and "bash: use timeout=600" in text

    updated = run("update", node["memory_id"], "Alice prefers tabs, width 4", "--json")
    assert json.loads(updated.stdout)["memory_id"] == node["memory_id"]
    found = json.loads(run("search", "tabs", "--user", "alice", "--limit", "1", "--json").stdout)
    assert found["memories"][0]["content"] == "Alice prefers tabs, width 4"
    assert found["memories"][0]["score"] > 0
    fetched = json.loads(run("get", node["memory_id"], "--json").stdout)
    assert fetched["content"] == "Alice prefers tabs, width 4"

    assert run("delete", node["memory_id"]).stdout.strip() == "deleted 1 memory"
    missing = run("get", node["memory_id"])
    assert missing.returncode == 1
    assert missing.stderr.strip().startswith(
        f"remecli memories: no memory with id '{node['memory_id']}'"
    )
    assert "list ids with `remecli memories list`" in missing.stderr  # a command the user has


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", "x"], "add_memory needs exactly one of user_name"),
        (["fly"], "invalid choice: 'fly'"),
        (["add", "x", "--user", "a", "--task", "b"], "not allowed with argument"),
        (["list", "--filter", "novalue"], "--filter needs KEY=VALUE"),
    ],
)
def test_mistakes_get_one_line_and_an_exit_code(
    fake_ai, tmp_path, args, message, capsys, monkeypatch
) -> None:
    done = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)(*args)
    assert done.returncode in (1, 2)
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_command_line_and_the_assistant_share_one_store(
    fake_ai, tmp_path, capsys, monkeypatch
) -> None:
    import asyncio

    from remecli.config.locations import Locations
    from tests.vector.helpers import make_reme

    run = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)
    added = run("add", "Alice likes tea", "--user", "alice", "search.embedding.dimensions=64")
    assert added.returncode == 0, added.stderr

    async def in_the_assistant() -> list[str]:
        # the folder the assistant's vector memory opens (conversation/vector_memory.py)
        reme = await make_reme(
            fake_ai, Locations(tmp_path).vector_dir, {"backend": "local"}
        ).start()
        try:
            return [node.content for node in await reme.list_memory(user_name="alice")]
        finally:
            await reme.close()

    assert asyncio.run(in_the_assistant()) == ["Alice likes tea"]


def test_summarize_retrieve_and_delete_all_from_the_shell(
    fake_ai, tmp_path, capsys, monkeypatch
) -> None:
    from tests.vector.helpers import facts

    run = runner(fake_ai, tmp_path, {"backend": "local"}, capsys, monkeypatch)
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps([{"role": "user", "content": "I always deploy with make ship"}]),
        encoding="utf-8",
    )
    fake_ai.add_text(facts("Frank deploys with make ship"))
    summarized = run("summarize", str(chat), "--user", "frank", "--json")
    assert summarized.returncode == 0, summarized.stderr
    contents = {
        n["content"] for n in json.loads(summarized.stdout) if n["memory_type"] != "history"
    }
    assert contents == {"Frank deploys with make ship"}
    found = run("retrieve", "how does Frank deploy", "--user", "frank")
    assert found.returncode == 0 and "Frank deploys with make ship" in found.stdout
    refused = run("delete-all", "--user", "frank")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    deleted = run("delete-all", "--user", "frank", "--yes")
    assert deleted.returncode == 0 and deleted.stdout.strip().startswith("deleted ")
    assert run("list", "--user", "frank").stdout.strip() == "(no memories)"


def test_an_unreachable_embedding_server_is_one_line(tmp_path, capsys, monkeypatch) -> None:
    from remecli.__main__ import main

    monkeypatch.chdir(tmp_path)
    for name in ("REME_EMBEDDING_API_KEY", "REME_EMBEDDING_BASE_URL", "REME_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code = main(
        [
            "memories",
            "retrieve",
            "anything",
            f"working_dir={tmp_path}",
            "search.embedding.backend=api",
            "search.embedding.api_key=sk-test",
            "search.embedding.base_url=http://127.0.0.1:9/v1",  # nothing listens on the discard port
            "search.embedding.dimensions=64",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1
    assert (
        err.startswith("remecli memories: vector memory: embedding API") and "Traceback" not in err
    )
