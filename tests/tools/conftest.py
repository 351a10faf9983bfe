"""Fixtures for the tool tests: a workspace in tmp_path and short limits."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from remecli.config.settings import ToolSettings
from remecli.notes.writer import MemoryWriter
from remecli.tools.context import ToolContext


def make_ctx(workspace: Path, **overrides: object) -> ToolContext:
    """A ToolContext on `workspace` with test-friendly limits (override any ToolSettings key)."""
    values: dict[str, object] = {"bash_timeout": 5.0, "bash_max_timeout": 10.0}
    values.update(overrides)
    settings = ToolSettings(**values)
    working_dir = workspace / ".reme"
    return ToolContext(
        workspace=workspace,
        working_dir=working_dir,
        settings=settings,
        writer=MemoryWriter(working_dir),  # the test's composition root
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return make_ctx(workspace)


def process_gone(pid: int) -> bool:
    """True when `pid` no longer runs (a zombie awaiting its reaper counts as gone)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def wait_until_gone(pid: int, timeout: float = 5.0) -> bool:
    """Poll until `pid` is gone or `timeout` passes; True when it is gone."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while not process_gone(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
