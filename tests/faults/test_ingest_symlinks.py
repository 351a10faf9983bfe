"""Links in resource/ to the memory's own secrets (`serve.token`, `tokens.json`, `logs/`,
`index/`) or out of the working dir: Auto Resource (the watcher and its catch-up) and
`memory_ingest` never read them, and no job hands them out (real files, links, the real runner)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from remecli.knowledge.resources.paths import PRIVATE_TOP
from remecli.knowledge.resources.watch import ResourceWatcher
from remecli.ops.errors import PathRefused
from remecli.ops.paths import PRIVATE_TOP as JOBS_PRIVATE_TOP
from tests.resources.conftest import answer

TOKEN = "serve-token-7f3a9c1e5b2d4f6a8c0e"
LOG_LINE = "log line with REME-LOG-SECRET-42"


def plant_links(root) -> None:
    """The memory's own files, and links (and a hard link) to them in resource/."""
    (root / "serve.token").write_text(TOKEN + "\n", encoding="utf-8")
    (root / "tokens.json").write_text('{"ci": "' + TOKEN + '"}\n', encoding="utf-8")
    (root / "logs").mkdir(exist_ok=True)
    (root / "logs" / "remecli.log").write_text(LOG_LINE + "\n", encoding="utf-8")
    folder = root / "resource"
    folder.mkdir(exist_ok=True)
    os.symlink(root / "serve.token", folder / "token.txt")
    os.symlink(root / "tokens.json", folder / "keys.json")
    os.symlink(root / "logs", folder / "logs")  # a folder link: its files are not resources
    os.symlink(root / "logs" / "remecli.log", folder / "app.log")
    os.symlink(root / "index", folder / "search")
    os.link(root / "serve.token", folder / "copy-of-token.txt")  # the same file, another name


def stored_text(root) -> str:
    """Everything the memory serves: the cards, the day pages, MEMORY.md."""
    paths = [root / "MEMORY.md", *sorted((root / "memory").rglob("*.md"))]
    return "\n".join(p.read_text(encoding="utf-8") for p in paths if p.is_file())


async def test_links_to_the_memorys_secrets_are_never_ingested(runner, tmp_path, fake_llm):
    root = tmp_path / ".reme"
    plant_links(root)
    (root / "resource" / "runbook.md").write_text("# Runbook\n\nRestart atlas.\n", "utf-8")
    (root / "resource" / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    cards = runner.memory.resources
    assert cards.resources() == ["resource/runbook.md"]

    fake_llm.add_text(answer("Atlas runbook", "How to restart the atlas service."))
    result = await runner.run("memory_ingest", {"path": "resource"})
    assert [(o["resource"], o["status"]) for o in result["outcomes"]] == [
        ("resource/runbook.md", "created"),
        # said, not dropped: links and a hard link to the memory's own files, and a type
        # remecli cannot read; none is read, and no message carries what they hold
        ("resource/app.log", "skipped"),
        ("resource/copy-of-token.txt", "skipped"),
        ("resource/diagram.png", "skipped"),
        ("resource/keys.json", "skipped"),
        ("resource/token.txt", "skipped"),
    ]
    said = json.dumps(result)
    assert TOKEN not in said and "REME-LOG-SECRET" not in said
    for rel in ("resource/token.txt", "resource/copy-of-token.txt", "resource/app.log"):
        outcome = await cards.ingest(rel)  # asked by name: refused, never read
        assert outcome.status == "refused" and "never read" in outcome.message
    synced = await cards.sync({"resource/token.txt", "resource/logs", "resource/search"})
    assert [(o.resource, o.status) for o in synced] == [("resource/token.txt", "skipped")]
    for path in ("resource/token.txt", "resource/keys.json", "resource/app.log"):
        with pytest.raises(PathRefused):
            await runner.run("memory_ingest", {"path": path})
        with pytest.raises(PathRefused):
            await runner.run("memory_read", {"path": path})
    for path in ("serve.token", "tokens.json", "logs/remecli.log", "resource/logs/remecli.log"):
        with pytest.raises(PathRefused):
            await runner.run("memory_read", {"path": path})

    sent = "\n".join(str(r.body) for r in fake_llm.chat_requests())
    assert TOKEN not in sent and "REME-LOG-SECRET" not in sent
    assert TOKEN not in stored_text(root) and "REME-LOG-SECRET" not in stored_text(root)


async def test_auto_resource_skips_links_to_the_token_at_start_and_while_it_runs(
    runner, tmp_path, fake_llm
):
    root = tmp_path / ".reme"
    plant_links(root)  # there before the app starts: its catch-up lists them
    watcher = ResourceWatcher(runner.memory.resources, debounce_ms=100)
    watcher.start()
    try:
        await asyncio.sleep(1.0)  # the catch-up is done, the watch is up
        os.symlink(root / "serve.token", root / "resource" / "dropped-token.txt")
        (root / "resource" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
        await asyncio.sleep(0.5)
        fake_llm.add_text(answer("Later note", "A note dropped after the token link."))
        (root / "resource" / "later.md").write_text("# Later\n\nA later note.\n", "utf-8")
        for _ in range(200):  # the later note proves the watcher saw both
            if any(o.resource == "resource/later.md" for o in watcher.outcomes):
                break
            await asyncio.sleep(0.1)
    finally:
        await watcher.stop()
    assert sorted((o.resource, o.status) for o in watcher.outcomes) == [
        ("resource/later.md", "created"),
        ("resource/photo.png", "skipped"),  # said (in the log), never silently left
    ]
    assert TOKEN not in stored_text(root) and "REME-LOG-SECRET" not in stored_text(root)
    sent = "\n".join(str(r.body) for r in fake_llm.chat_requests())
    assert TOKEN not in sent and "REME-LOG-SECRET" not in sent


def test_auto_resource_and_the_jobs_keep_the_same_private_files() -> None:
    assert PRIVATE_TOP == JOBS_PRIVATE_TOP
