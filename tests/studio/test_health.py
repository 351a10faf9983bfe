"""The Health page in a real browser: what the index covers, a file changed behind its back
listed as stale, and the Reindex and Dream buttons followed through server-sent events until
they finish (the jobs run through the operations layer: memory_reindex, memory_dream)."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.studio.conftest import DAY, Studio, logged_in, screenshot
from tests.surfaces.helpers import poll

LOG_STARTED_PROGRESSED_FINISHED = """() => {
  const task = document.querySelector(".task[data-job='memory_reindex']");
  const kinds = task ? [...task.querySelectorAll(".task-log li")].map((i) => i.dataset.kind) : [];
  return kinds[0] === "started" && kinds.includes("progress") && kinds.at(-1) === "finished";
}"""


def _indexed(studio: Studio) -> int:
    token = (studio.root / "serve.token").read_text().strip()
    answer = httpx.post(
        f"{studio.url}/api/memory_health", json={}, headers={"authorization": f"Bearer {token}"}
    )
    return int(answer.json()["files_indexed"]) if answer.status_code == 200 else 0


def test_health_lists_stale_files_and_reindex_reports_progress(
    page: Page, studio: Studio, fake_llm
) -> None:
    poll(lambda: _indexed(studio) == 5, "the first sync")  # the edit comes after it: stale
    logged_in(page, studio)
    (studio.root / DAY).write_text((studio.root / DAY).read_text() + "\nEdited in vim.\n")
    page.locator("#nav a[data-page='health']").click()
    figures = page.locator(".figures")
    expect(figures.locator("[data-figure='files_on_disk'] .figure-value")).to_have_text("5")
    expect(figures.locator("[data-figure='files_indexed'] .figure-value")).to_have_text("5")
    expect(figures.locator("[data-figure='embedded_share'] .figure-value")).to_have_text("off")
    assert int(figures.locator("[data-figure='chunks'] .figure-value").inner_text()) >= 4
    expect(page.locator("[data-list='stale'] a")).to_have_text([DAY])  # search.watch is off
    expect(page.locator("[data-field='last_reindex']")).to_have_text("never")

    page.locator("#reindex").click()
    task = page.locator(".task[data-job='memory_reindex']")
    expect(task).to_have_class("task finished", timeout=60_000)
    # read in one go in the page: a live redraw may replace the task while its log is replayed
    page.wait_for_function(LOG_STARTED_PROGRESSED_FINISHED, timeout=30_000)
    expect(task.locator(".task-log li[data-kind='progress']").last).to_contain_text("reading 5/5")
    expect(page.locator("[data-list='stale']")).to_have_count(0)  # read again: not stale
    expect(page.locator("[data-field='last_reindex']")).not_to_have_text("never")
    screenshot(page, "health")

    fake_llm.add_error(500, "the model is down", delay=3.0)  # the dream fails, after a while
    page.locator("#dream").click()
    dream = page.locator(".task[data-job='memory_dream']")
    # alive: its clock ticks (the first tick may wait for a loaded machine's server to start it)
    expect(dream.locator(".task-clock")).to_have_text(re.compile(r"^[1-9]\d* s$"), timeout=20_000)
    expect(dream.locator(".task-line")).to_have_text("started")
    assert dream.locator("progress").get_attribute("value") is None  # moving, not a fixed 0
    expect(dream).to_have_class("task failed", timeout=90_000)
    expect(dream.locator(".task-log li").last).to_have_attribute("data-kind", "failed")
    expect(dream.locator(".task-line")).to_contain_text("failed")
    assert dream.locator("progress").evaluate("bar => bar.value") == 0  # not a full green bar
