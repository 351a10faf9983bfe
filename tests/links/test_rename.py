"""Renaming a note retargets every link to it; deleting one reports what still links there."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remecli.notes.links.graph import LinkGraph
from remecli.notes.links.rename import RenameError, delete, rename
from remecli.notes.writer import MemoryWriter
from tests.links.conftest import write_files


def resolutions(graph: LinkGraph) -> dict[tuple[str, int, int], str | None]:
    found = {}
    for note in graph.notes():
        for index, edge in enumerate(graph.outlinks(note)):
            found[(note, edge.link.line, index)] = edge.target
    return found


def test_rename_rewrites_inbound_links_in_their_own_style(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    writer = MemoryWriter(linked_dir)
    report = rename(graph, writer, "digest/procedure/rollback.md", "digest/procedure/undo.md")
    assert report.rewritten == [
        "digest/procedure/release-checklist.md",
        "memory/2025-01-31/deploy.md",
    ]
    assert not (linked_dir / "digest/procedure/rollback.md").exists()
    card = (linked_dir / "memory/2025-01-31/deploy.md").read_text()
    assert "Related: [[undo]] and" in card  # a bare stem link stays a bare stem
    checklist = (linked_dir / "digest/procedure/release-checklist.md").read_text()
    assert "2. [[undo]] plan ready." in checklist
    assert [e.source for e in graph.backlinks("digest/procedure/undo.md")] == [
        "digest/procedure/release-checklist.md",
        "memory/2025-01-31/deploy.md",
    ]
    # links by frontmatter name need no rewrite; path links keep anchor and alias
    rename(graph, writer, "memory/2025-01-31/deploy.md", "memory/2025-01-31/shipping.md")
    assert "[[Deploy steps]]" in (linked_dir / "MEMORY.md").read_text()
    day = (linked_dir / "memory/2025-01-31.md").read_text()
    assert "- [[memory/2025-01-31/shipping.md]] name: Deploy steps" in day
    checklist = (linked_dir / "digest/procedure/release-checklist.md").read_text()
    assert "[[memory/2025-01-31/shipping.md#L8]]" in checklist
    # every changed file kept its previous content as a version
    assert [v.source for v in writer.history("memory/2025-01-31.md")][-1].startswith(
        "links retargeted"
    )
    assert writer.history("memory/2025-01-31/deploy.md")[-1].deleted


def test_rename_refuses_what_it_cannot_do(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    writer = MemoryWriter(linked_dir)
    with pytest.raises(RenameError, match="exists already"):
        rename(graph, writer, "digest/procedure/rollback.md", "digest/wiki/blue-green.md")
    with pytest.raises(RenameError, match="not a memory note"):
        rename(graph, writer, "digest/procedure/rollback.md", "sessions/x.md")
    with pytest.raises(RenameError, match="does not exist"):
        rename(graph, writer, "digest/nope.md", "digest/nope2.md")


def test_delete_reports_what_still_links_there(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    writer = MemoryWriter(linked_dir)
    linking = delete(graph, writer, "digest/procedure/rollback.md")
    assert [(e.source, e.link.target) for e in linking] == [
        ("digest/procedure/release-checklist.md", "Rollback"),
        ("memory/2025-01-31/deploy.md", "Rollback"),
    ]
    assert not (linked_dir / "digest/procedure/rollback.md").exists()
    writer.restore("digest/procedure/rollback.md", 1)
    graph.update_file("digest/procedure/rollback.md")
    assert len(graph.backlinks("digest/procedure/rollback.md")) == 2


PATHS = ["memory/a.md", "memory/sub/b.md", "digest/wiki/c.md", "digest/procedure/d.md"]
TARGETS = ["a", "b", "c", "d", "memory/a.md", "sub/b", "../wiki/c.md", "digest/procedure/d", "B"]
texts = st.lists(st.sampled_from(TARGETS), max_size=4).map(
    lambda links: "".join(f"- see [[{t}]] and [[{t}#L1|x]]\n" for t in links)
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(texts, min_size=4, max_size=4),
    st.sampled_from(PATHS),
    st.sampled_from(["memory/z.md", "digest/wiki/moved.md", "memory/sub/deeper/e.md"]),
)
def test_rename_keeps_every_link_pointing_where_it_did(tmp_path_factory, bodies, old, new) -> None:
    root = tmp_path_factory.mktemp("wd")
    write_files(root, dict(zip(PATHS, bodies, strict=True)))
    graph = LinkGraph.open(root, persist=False)
    before = resolutions(graph)
    rename(graph, MemoryWriter(root), old, new)
    after = resolutions(LinkGraph.open(root, persist=False))
    # every link that resolved before still reaches the same note (under its new name);
    # (a dangling relative link may start to resolve from the note's new folder)
    for (note, line, i), target in before.items():
        if target is not None:
            key = (new if note == old else note, line, i)
            assert after[key] == (new if target == old else target)
    assert set(after) == {(new if n == old else n, line, i) for n, line, i in before}


class DiskFullOn(MemoryWriter):
    """The real writer, failing like a full disk on one file (fault injection)."""

    def __init__(self, root: Path, failing: str) -> None:
        super().__init__(root)
        self.failing = failing

    def write(self, path, content, **options):  # type: ignore[no-untyped-def, override]
        if str(path) == self.failing:
            raise OSError(28, "No space left on device")
        return super().write(path, content, **options)


def test_a_rename_that_fails_half_way_is_undone(linked_dir: Path) -> None:
    def notes() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in linked_dir.rglob("*.md") if ".history" not in p.parts}

    before = notes()
    graph = LinkGraph.open(linked_dir, persist=False)
    # the second note to retarget fails, after the move and the first rewrite
    writer = DiskFullOn(linked_dir, "memory/2025-01-31/deploy.md")
    with pytest.raises(OSError, match="No space left"):
        rename(graph, writer, "digest/procedure/rollback.md", "digest/procedure/undo.md")
    assert notes() == before  # moved back, rewritten links put back, no new file left
    assert [e.source for e in graph.backlinks("digest/procedure/rollback.md")] == [
        "digest/procedure/release-checklist.md",
        "memory/2025-01-31/deploy.md",
    ]
    assert graph.backlinks("digest/procedure/undo.md") == []
    undone = writer.history("digest/procedure/release-checklist.md")[-1]
    assert undone.source == "rename undone"  # the undo is itself a version
