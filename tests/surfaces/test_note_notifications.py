"""MCP resource change notifications: a note changed or added by another process reaches the
clients of `remecli mcp` (a real stdio process) that subscribed — with the official SDK client,
on the 2026-07-28 wire (`subscriptions/listen`) and on the earlier one (`resources/subscribe`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp.types import ResourceListChangedNotification, ResourceUpdatedNotification

from tests.jobs.conftest import seed
from tests.surfaces.helpers import surface_settings

NO_LLM = "http://127.0.0.1:9/v1"
MEMORY = "remecli://notes/MEMORY.md"
WAIT = 60


def stdio_server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "remecli", "mcp", *surface_settings(root, NO_LLM)],
        env={**os.environ},
    )


def write_elsewhere(path: Path, text: str) -> None:
    """Write a note from another process, as another agent would."""
    code = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(path), text], check=True, timeout=60)


async def test_listen_stream_hears_updates_and_new_notes(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    async with Client(stdio_server(root)) as client:
        async with client.listen(
            resources_list_changed=True, resource_subscriptions=[MEMORY]
        ) as sub:
            events = aiter(sub)
            write_elsewhere(root / "MEMORY.md", "# MEMORY\n\n- The staging host is stg-9.\n")
            with anyio.fail_after(WAIT):
                updated = await anext(events)
            assert updated == ResourceUpdated(uri=MEMORY)
            text = (await client.read_resource(MEMORY)).contents[0].text
            assert "stg-9" in text
            write_elsewhere(root / "memory" / "2025-02-01.md", "# 2025-02-01\n\nNew day.\n")
            with anyio.fail_after(WAIT):
                while not isinstance(event := await anext(events), ResourcesListChanged):
                    assert isinstance(event, ResourceUpdated)
        listed = {str(r.uri) for r in (await client.list_resources()).resources}
    assert "remecli://notes/memory/2025-02-01.md" in listed


async def test_legacy_subscription_gets_notifications(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    seed(root)
    updated, changed = anyio.Event(), anyio.Event()
    seen: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            seen.append(str(message.params.uri))
            updated.set()
        elif isinstance(message, ResourceListChangedNotification):
            changed.set()

    async with Client(stdio_server(root), mode="legacy", message_handler=on_message) as client:
        assert client.session.server_capabilities.resources.subscribe is True
        await client.subscribe_resource(MEMORY)
        write_elsewhere(root / "memory" / "2024-06-01.md", "# 2024-06-01\n\nnot subscribed\n")
        write_elsewhere(root / "MEMORY.md", "# MEMORY\n\n- The staging host is stg-9.\n")
        with anyio.fail_after(WAIT):
            await updated.wait()
        assert seen == [MEMORY]  # only the subscribed note
        write_elsewhere(root / "memory" / "2025-03-01.md", "# 2025-03-01\n\nFridays.\n")
        with anyio.fail_after(WAIT):
            await changed.wait()
