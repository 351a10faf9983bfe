"""Dream review in Studio, in a real browser: the runs, a node's action, sources and diff, and
reverting a node restores the digest file as it was before that run (through its history)."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from remecli.knowledge.dream.runner import dream
from remecli.notes.layout import WorkingDir
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit
from tests.studio.conftest import Studio, logged_in, screenshot, seed
from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy

DAY = dt.date(2025, 1, 31)
NODE = "digest/procedure/deploy-atlas.md"
CLAIM = "Deploy atlas with `make ship`, on Fridays."


def node_text(card: str) -> str:
    return (
        "---\nname: Deploy atlas\ndescription: How atlas is deployed.\n---\n"
        f"{CLAIM}\n\n## Sources\n- [[{card}]]\n"
    )


def dream_in_a_thread(settings, working_dir: WorkingDir) -> bool:
    """A dream run to its end (in a thread: Playwright's loop runs in this one)."""
    done: list[bool] = []
    worker = threading.Thread(
        target=lambda: done.append(asyncio.run(dream(settings, working_dir, date=DAY)).ok)
    )
    worker.start()
    worker.join(120)
    return done == [True]


def two_dreams(fake_llm, tmp_path: Path, root: Path) -> tuple[str, str]:
    """Run 1 creates the node, run 2 refines it; the node's text after run 1, and card 2."""
    working_dir = WorkingDir(root)
    settings = make_settings(fake_llm, tmp_path).with_changes({"working_dir": str(root)})
    card = add_card(working_dir, DAY, "deploy", "Deploy", "Atlas ships with make ship on Fridays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "make ship", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": node_text(card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    assert dream_in_a_thread(settings, working_dir)
    first = (root / NODE).read_text()
    other = add_card(working_dir, DAY, "deploy-days", "Days", "Atlas now also ships on Tuesdays.")
    fake_llm.add_text(extraction([unit("Deploy atlas", "procedure", "Tuesdays too", other)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    fake_llm.add_tool_calls(
        [("edit", {"path": NODE, "old_text": CLAIM, "new_text": CLAIM[:-1] + ", Tuesdays."})]
    )
    fake_llm.add_text(receipt("REFINE", NODE))
    assert dream_in_a_thread(settings, working_dir)
    return first, other


@pytest.fixture
def dreamed(tmp_path: Path, fake_llm) -> Iterator[tuple[Studio, str, str]]:
    root = tmp_path / ".reme"
    seed(root)
    first, other = two_dreams(fake_llm, tmp_path, root)
    settings = [*surface_settings(root, fake_llm.base_url), "memory.dream.auto=false"]
    surface = start_surface(["serve", "--port", "0", *settings])
    wait_until_healthy(surface.url)
    try:
        yield Studio(surface, root, settings), first, other
    finally:
        surface.stop()


def test_revert_a_dream_node_in_studio(page: Page, dreamed: tuple[Studio, str, str]) -> None:
    studio, first, other = dreamed
    logged_in(page, studio)
    page.locator("#dream-review").click()  # from the navigator
    runs = page.locator("#runs ul.files a")
    expect(runs).to_have_count(2)
    runs.first.click()  # the newest: the refinement
    node = page.locator(f"section.dream-node[data-path='{NODE}']")
    expect(node.locator(".action")).to_have_text("REFINE")
    expect(node.locator("ul.sources")).to_contain_text(other)
    expect(node.locator(".diff-del", has_text=CLAIM)).to_have_count(1)
    expect(node.locator(".diff-add", has_text="on Fridays, Tuesdays.")).to_have_count(1)
    screenshot(page, "dream")

    node.get_by_role("button", name="Revert node").click()
    node.get_by_role("button", name=f"Yes, revert {NODE}").click()
    expect(page.locator("#status")).to_contain_text("reverted 1 node(s)")
    expect(node.locator(".actions")).to_contain_text("reverted (version 3)")
    expect(runs.first.locator(".status")).to_have_text("reverted")  # its only node: the run too
    expect(runs.last.locator(".status")).to_have_text("applied")
    assert (studio.root / NODE).read_text() == first  # the digest file as run 1 left it


def test_a_revert_without_the_csrf_token_is_refused(
    page: Page, dreamed: tuple[Studio, str, str]
) -> None:
    studio, _first, _other = dreamed
    logged_in(page, studio)
    page.goto(studio.url + "/dream")
    run_id = page.locator("#runs ul.files a").first.get_attribute("data-run")
    answer = page.evaluate(
        """async ([id, path]) => {
          const r = await fetch('/studio/api/dream/revert', {method: 'POST',
            headers: {'content-type': 'application/json'},
            body: JSON.stringify({run_id: id, path})});
          return r.status;
        }""",
        [run_id, NODE],
    )
    assert answer == 403
    assert "Tuesdays" in (studio.root / NODE).read_text()  # untouched
