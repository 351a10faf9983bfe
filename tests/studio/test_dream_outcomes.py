"""Dream review and Dream now say what became of a run (issue 38): a run whose units all failed
is listed `failed`, not `applied` with 0 nodes; rejecting a run that waits says how many nodes it
dropped (it said 'rejected 0 node(s)'). The runs are changesets on disk, as a dream leaves them;
the server and the page read them through the dream jobs."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from remecli.knowledge.dream import changesets
from remecli.knowledge.dream.changesets import Changeset, NodeChange, UnitRecord
from remecli.notes.layout import WorkingDir
from tests.studio.conftest import Studio, logged_in

FAILED = "20250131T100000-0001"
PENDING = "20250131T110000-0002"
NODE = "digest/wiki/atlas.md"


def save_runs(studio: Studio) -> None:
    broken = UnitRecord("Atlas", "wiki", "atlas", ["memory/2025-01-31/a.md"], ok=False,
                        detail="the model did not answer (500)")  # fmt: skip
    changesets.save(
        WorkingDir(studio.root),
        Changeset(FAILED, "2025-01-31T10:00:00+00:00", "applied", "1 unit failed", [broken]),
    )
    waiting = Changeset(PENDING, "2025-01-31T11:00:00+00:00", "pending", "1 change waits")
    waiting.units.append(
        UnitRecord("Atlas", "wiki", "atlas", [], ok=True, action="CREATE", path=NODE)
    )
    waiting.nodes.append(NodeChange(NODE, "CREATE", "Atlas", [], None, "# Atlas\n"))
    changesets.save(WorkingDir(studio.root), waiting)


def test_failed_and_rejected_runs_say_so(page: Page, studio: Studio) -> None:
    save_runs(studio)
    logged_in(page, studio)
    page.goto(f"{studio.url}/dream")
    failed = page.locator(f"#runs a[data-run='{FAILED}'] .status")
    expect(failed).to_have_text("failed")
    expect(failed).to_have_attribute("data-outcome", "failed")
    expect(page.locator(f"#runs a[data-run='{PENDING}'] .status")).to_have_text("pending")

    page.locator(f"#runs a[data-run='{PENDING}']").click()
    page.get_by_role("button", name="Reject").click()
    page.get_by_role("button", name="Yes, drop these changes").click()
    expect(page.locator("#status")).to_contain_text("rejected 1 node(s)")
    expect(page.locator(f"#runs a[data-run='{PENDING}'] .status")).to_have_text("rejected")
    assert not (studio.root / NODE).exists()  # nothing of it written
