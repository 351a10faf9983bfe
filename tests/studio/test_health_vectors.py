"""Health with embeddings on (issue 38): after a reindex, a conversation still being written
(its last chunk waits until the file is quiet, by design) is not listed as waiting for a vector
and does not pull the embedded share below 100 %; it is shown as being written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.studio.conftest import Studio, logged_in, seed, transcript
from tests.studio.test_history_diff import call_api
from tests.surfaces.helpers import poll, start_surface, surface_settings, wait_until_healthy

LIVE = "sessions/live.jsonl"


@pytest.fixture
def embedding_studio(tmp_path: Path, fake_llm) -> Iterator[Studio]:
    root = tmp_path / ".reme"
    seed(root)
    settings = [
        *surface_settings(root, fake_llm.base_url),
        "memory.dream.auto=false",
        "search.embedding.backend=api",
        f"search.embedding.base_url={fake_llm.base_url}",
        "search.embedding.api_key=sk-test",
    ]
    surface = start_surface(["serve", "--port", "0", *settings])
    wait_until_healthy(surface.url)
    try:
        yield Studio(surface, root, settings)
    finally:
        surface.stop()


def test_a_live_conversation_is_not_waiting_for_a_vector(
    page: Page, embedding_studio: Studio
) -> None:
    studio = embedding_studio
    poll(lambda: call_api(studio, "memory_health", {})["index_state"] == "ready", "the index")
    (studio.root / LIVE).write_text(transcript(), encoding="utf-8")  # written just now
    logged_in(page, studio)
    page.locator("#nav a[data-page='health']").click()
    page.locator("#reindex").click()
    expect(page.locator(".task[data-job='memory_reindex']")).to_have_class(
        "task finished", timeout=60_000
    )
    figures = page.locator(".figures")
    expect(figures.locator("[data-figure='embedded_share'] .figure-value")).to_have_text("100%")
    expect(figures.locator("[data-figure='unembedded'] .figure-value")).to_have_text("0")
    expect(page.locator("[data-list='unembedded']")).to_have_count(0)
    expect(page.locator("[data-list='being_written'] a")).to_contain_text([LIVE])
