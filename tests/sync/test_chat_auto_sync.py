"""Sync over git while a chat runs (`sync.auto`): at start and after a card is written, the
outcome on the session's stream for the status line."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from remecli.agent import events as ev
from remecli.commands.chat_session import ChatSession
from tests.agent.conftest import make_settings
from tests.cli_process import run_remecli


def _remote_files(remote: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main"],
        capture_output=True,
        text=True,
    )
    return listed.stdout.split()


async def _until_status(session: ChatSession, seen: list) -> ev.SyncStatus:
    async def read() -> ev.SyncStatus:
        async for event in session.events():
            seen.append(event)
            if isinstance(event, ev.SyncStatus):
                return event
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(read(), timeout=60)


async def test_a_chat_syncs_at_start_and_after_a_card(fake_llm, tmp_path: Path) -> None:
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    root = tmp_path / ".reme"
    root.mkdir()
    (root / "MEMORY.md").write_text("# MEMORY\n\n- editor: helix\n", encoding="utf-8")
    settings = [f"working_dir={root}", "search.embedding.backend=none", "sync.machine=laptop"]
    done = run_remecli("sync", "init", str(remote), *settings, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    session = ChatSession(
        make_settings(fake_llm, tmp_path, "sync.auto=true", "sync.machine=laptop"), cwd=tmp_path
    )
    seen: list = []
    try:
        await session.start()
        first = await _until_status(session, seen)
        assert first.text.startswith("synced ") and not first.trouble
        card = root / "memory" / "2026-01-05" / "travel.md"
        card.parent.mkdir(parents=True)
        card.write_text("---\nname: Travel\n---\n- flights on Friday\n", encoding="utf-8")
        session.emit(ev.BackgroundTasks(0))  # as the runtime says when a card is written
        second = await _until_status(session, seen)
        assert not second.trouble
        assert "memory/2026-01-05/travel.md" in _remote_files(remote)
    finally:
        await session.close(force=True)


async def test_no_sync_without_sync_auto(fake_llm, tmp_path: Path) -> None:
    session = ChatSession(make_settings(fake_llm, tmp_path), cwd=tmp_path)
    await session.start()
    try:
        assert session._syncing is not None
        await asyncio.wait_for(session._syncing, timeout=10)  # returns at once: nothing to do
    finally:
        await session.close(force=True)
