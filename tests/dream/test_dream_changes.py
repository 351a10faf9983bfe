"""`remecli dream --list` says what each run changed (issue 38): it showed the status and a node
count only, so a run that corroborated what was already there read like one that added nodes."""

from __future__ import annotations

from remecli.knowledge.dream.changesets import Changeset, NodeChange, UnitRecord


def node(path: str, action: str, before: str | None, after: str | None) -> NodeChange:
    return NodeChange(path, action, before=before, after=after)


def test_a_runs_changes_count_what_it_changed_by_action() -> None:
    run = Changeset("20250131T100000-0001", "2025-01-31T10:00:00+00:00", "applied")
    run.nodes = [
        node("digest/wiki/a.md", "CREATE", None, "# A\n"),
        node("digest/wiki/b.md", "CREATE", None, "# B\n"),
        node("digest/wiki/c.md", "CORRECT", "# C\n", "# C, fixed\n"),
        node("digest/wiki/d.md", "CORROBORATE", "# D\n", "# D\n"),  # left as it was
    ]
    assert run.changes() == "2 nodes added, 1 corrected"
    run.nodes = run.nodes[2:]
    assert run.changes() == "1 node corrected"


def test_a_run_that_changed_nothing_says_so_and_counts_its_failures() -> None:
    quiet = Changeset("20250131T100000-0002", "2025-01-31T10:00:00+00:00", "applied")
    assert quiet.changes() == "nothing new"
    quiet.units = [UnitRecord("Atlas", "wiki", "atlas", [], ok=False, detail="no answer")]
    assert quiet.changes() == "1 unit(s) failed"
