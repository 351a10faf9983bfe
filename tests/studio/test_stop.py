"""`remecli serve` stops promptly on SIGTERM (issue 38) even while a page follows a long task
(Dream now, here against a model that never answers) through server-sent events: the stream
ends when the server is asked to stop, instead of holding the shutdown for uvicorn's 10 s grace
(it took 10-15 s, and printed 'Task cancelled, timeout graceful shutdown exceeded')."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.studio.conftest import Studio, logged_in, seed
from tests.surfaces.helpers import poll, start_surface, surface_settings, wait_until_healthy

LIMIT_SECONDS = 5.0


@pytest.fixture
def silent_model() -> Iterator[socket.socket]:
    """A model server that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.setblocking(False)
    try:
        yield listener
    finally:
        listener.close()


def test_serve_stops_at_once_while_a_task_is_followed(
    page: Page, tmp_path: Path, silent_model: socket.socket
) -> None:
    root = tmp_path / ".reme"
    seed(root)
    model = f"http://127.0.0.1:{silent_model.getsockname()[1]}/v1"
    settings = [*surface_settings(root, model), "memory.dream.auto=false"]
    surface = start_surface(["serve", "--port", "0", *settings])
    try:
        wait_until_healthy(surface.url)
        logged_in(page, Studio(surface, root, settings))
        page.locator("#nav a[data-page='health']").click()
        page.locator("#dream").click()
        expect(page.locator(".task[data-job='memory_dream'] .task-line")).to_have_text("started")

        held: list[socket.socket] = []  # the dream's request, kept open and never answered

        def asked() -> bool:
            try:
                held.append(silent_model.accept()[0])
            except BlockingIOError:
                return False
            return True

        poll(asked, "the dream asking the model")  # it runs: its stream is open
        page.wait_for_timeout(1000)
        expect(page.locator(".task[data-job='memory_dream']")).to_have_class("task")  # not done
        started = time.monotonic()
        surface.process.send_signal(signal.SIGTERM)
        code = surface.process.wait(60)
        stopped_after = time.monotonic() - started
    finally:
        surface.stop()
    print(f"serve stopped {stopped_after:.2f}s after SIGTERM")
    assert code == 0
    assert stopped_after < LIMIT_SECONDS
    assert "timeout graceful shutdown exceeded" not in "".join(surface.stderr)
