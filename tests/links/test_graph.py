"""The link graph: resolution, backlinks, dangling links, persistence, incremental updates."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remecli.notes.links.graph import LinkGraph
from tests.links.conftest import write_files


def edges(graph: LinkGraph) -> dict[str, list[tuple[str, int, str | None]]]:
    return {
        note: [(e.link.target, e.link.line, e.target) for e in graph.outlinks(note)]
        for note in graph.notes()
    }


def backlinks(graph: LinkGraph) -> dict[str, list[tuple[str, int]]]:
    targets = {e.target for note in graph.notes() for e in graph.outlinks(note) if e.target}
    return {t: [(e.source, e.link.line) for e in graph.backlinks(t)] for t in sorted(targets)}


def test_links_resolve_by_path_name_stem_and_relative_path(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    out = {e.link.target: e.target for e in graph.outlinks("memory/2025-01-31/deploy.md")}
    assert out == {
        "sessions/abc.jsonl": "sessions/abc.jsonl",  # a transcript: any file of the working dir
        "digest/procedure/release-checklist": "digest/procedure/release-checklist.md",
        "Rollback": "digest/procedure/rollback.md",  # by file stem
        "digest/wiki/blue-green.md": "digest/wiki/blue-green.md",
    }
    memory = {e.link.target: e.target for e in graph.outlinks("MEMORY.md")}
    assert memory == {"Deploy steps": "memory/2025-01-31/deploy.md", "personal/editor": None}
    assert [(e.source, e.link.target) for e in graph.dangling()] == [
        ("MEMORY.md", "personal/editor")
    ]
    into = [(e.source, e.link.line) for e in graph.backlinks("memory/2025-01-31/deploy.md")]
    assert into == [
        ("MEMORY.md", 3),
        ("digest/procedure/release-checklist.md", 8),
        ("memory/2025-01-31.md", 4),
    ]
    # a link in a code span is not a link
    assert graph.outlinks("digest/procedure/rollback.md") == []


def test_resolution_rules(tmp_path: Path) -> None:
    root = tmp_path / "wd"
    write_files(
        root,
        {
            "MEMORY.md": "",
            "memory/a/deploy-steps.md": "",
            "memory/b/deploy-steps.md": "",
            "memory/a/note.md": "[[deploy steps]] [[./note]] [[../b/deploy-steps]] [[b/deploy-steps]]",
            "digest/wiki/x.md": "---\nname: The X\n---\n[[deploy_steps]] [[THE x]] [[../../../etc]]",
            "memory/c.md": "[[/MEMORY.md]] [[../outside.md]] [[link-out]] [[memory/c.md#L1]]",
        },
    )
    (tmp_path / "outside.md").write_text("")
    os.symlink(tmp_path / "outside.md", root / "memory" / "link-out.txt")
    graph = LinkGraph.open(root, persist=False)
    note = [e.target for e in graph.outlinks("memory/a/note.md")]
    # same folder wins a tie; relative paths work; a partial path finds its file
    assert note == [
        "memory/a/deploy-steps.md",
        "memory/a/note.md",
        "memory/b/deploy-steps.md",
        "memory/b/deploy-steps.md",
    ]
    x = [e.target for e in graph.outlinks("digest/wiki/x.md")]
    assert x == ["memory/a/deploy-steps.md", "digest/wiki/x.md", None]
    c = [e.target for e in graph.outlinks("memory/c.md")]
    assert c == ["MEMORY.md", None, None, "memory/c.md"]  # nothing outside the working dir


def test_the_graph_persists_and_reparses_only_changes(linked_dir: Path) -> None:
    first = LinkGraph.open(linked_dir)
    before = edges(first)
    first.close()
    assert (linked_dir / "index" / "links.sqlite3").stat().st_mode & 0o777 == 0o600
    second = LinkGraph(linked_dir)
    assert second.sync() == 0  # everything came from the store
    assert edges(second) == before
    card = linked_dir / "memory/2025-01-31/deploy.md"
    card.write_text(card.read_text() + "\nMore: [[Blue/green deploys]]\n")
    assert second.sync() == 1
    assert ("Blue/green deploys", 12, "digest/wiki/blue-green.md") in edges(second)[
        "memory/2025-01-31/deploy.md"
    ]
    second.close()
    (linked_dir / "sessions/abc.jsonl").unlink()  # a linked transcript removed meanwhile
    third = LinkGraph.open(linked_dir)
    assert ("sessions/abc.jsonl", 5, None) in edges(third)["memory/2025-01-31/deploy.md"]
    third.close()


def test_a_corrupt_store_or_an_index_file_is_rebuilt_quietly(linked_dir: Path) -> None:
    expected = edges(LinkGraph.open(linked_dir, persist=False))
    (linked_dir / "index").mkdir()
    (linked_dir / "index" / "links.sqlite3").write_bytes(b"garbage" * 100)
    graph = LinkGraph.open(linked_dir)
    assert edges(graph) == expected
    graph.close()
    with sqlite3.connect(linked_dir / "index" / "links.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM notes").fetchone()[0] == len(expected)
    other = linked_dir.parent / "other"
    write_files(other, {"MEMORY.md": "[[memory/x]]", "memory/x.md": "", "index": "a file"})
    assert edges(LinkGraph.open(other)) == {
        "MEMORY.md": [("memory/x", 1, "memory/x.md")],
        "memory/x.md": [],
    }


def test_update_file_follows_a_name_change_and_a_deletion(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    card = linked_dir / "memory/2025-01-31/deploy.md"
    card.write_text(card.read_text().replace("name: Deploy steps", "name: Shipping"))
    graph.update_file("memory/2025-01-31/deploy.md")
    assert graph.resolve("MEMORY.md", "Deploy steps") is None
    assert [e.target for e in graph.outlinks("MEMORY.md")][0] is None
    (linked_dir / "digest/procedure/rollback.md").unlink()
    graph.update_file("digest/procedure/rollback.md")
    assert "digest/procedure/rollback.md" not in graph.notes()
    assert graph.backlinks("digest/procedure/rollback.md") == []
    dangling = {(e.source, e.link.target) for e in graph.dangling()}
    assert ("digest/procedure/release-checklist.md", "Rollback") in dangling
    (linked_dir / "digest/wiki/rollback.md").write_text("# new home\n")
    graph.update_file("digest/wiki/rollback.md")
    assert graph.resolve("memory/2025-01-31/deploy.md", "Rollback") == "digest/wiki/rollback.md"


NAMES = ["alpha", "beta", "gamma", "delta"]
PATHS = ["MEMORY.md", "memory/alpha.md", "memory/d/beta.md", "digest/wiki/gamma.md"]
link_target = st.sampled_from(
    [*NAMES, "Alpha", "memory/alpha", "d/beta", "digest/wiki/gamma.md", "../alpha.md", "missing"]
)
note_text = st.builds(
    lambda name, links: (
        (f"---\nname: {name}\n---\n" if name else "") + "".join(f"- [[{t}]]\n" for t in links)
    ),
    st.one_of(st.none(), st.sampled_from([n.title() for n in NAMES])),
    st.lists(link_target, max_size=4),
)
operation = st.tuples(st.sampled_from(PATHS), st.one_of(st.none(), note_text))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(operation, min_size=1, max_size=10))
def test_incremental_updates_match_a_fresh_build(tmp_path_factory, operations) -> None:
    root = tmp_path_factory.mktemp("wd")
    (root / "memory" / "d").mkdir(parents=True)
    (root / "digest" / "wiki").mkdir(parents=True)
    graph = LinkGraph.open(root)
    for path, text in operations:
        target = root / path
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.write_text(text)
        graph.update_file(path)
        fresh = LinkGraph.open(root, persist=False)
        assert edges(graph) == edges(fresh)
        assert backlinks(graph) == backlinks(fresh)
        # property: every resolved link points at an existing file inside the working dir
        for note in graph.notes():
            for edge in graph.outlinks(note):
                if edge.target is not None:
                    assert (root / edge.target).is_file()
    graph.close()
    reopened = LinkGraph.open(root)
    assert edges(reopened) == edges(LinkGraph.open(root, persist=False))
    reopened.close()


def test_a_notes_status_is_kept_in_the_store_and_follows_the_file(linked_dir: Path) -> None:
    node = linked_dir / "digest/wiki/blue-green.md"
    node.write_text("---\nname: Blue/green deploys\nstatus: contradicted\n---\nTwo fleets.\n")
    LinkGraph.open(linked_dir).close()
    stored = LinkGraph(linked_dir)
    assert stored.sync() == 0  # nothing parsed again: the status came from the store
    assert stored.status("digest/wiki/blue-green.md") == "contradicted"
    assert stored.status("digest/procedure/rollback.md") == ""  # no frontmatter
    node.write_text("---\nname: Blue/green deploys\nstatus: active\n---\nTwo fleets, again.\n")
    stored.update_file("digest/wiki/blue-green.md")
    assert stored.status("digest/wiki/blue-green.md") == "active"
    stored.close()


def test_a_store_of_the_layout_before_status_is_made_anew(linked_dir: Path) -> None:
    (linked_dir / "index").mkdir()
    with sqlite3.connect(linked_dir / "index" / "links.sqlite3") as db:  # schema 2: no status
        db.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES ('schema', '2');"
            "CREATE TABLE notes (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL,"
            " size INTEGER NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL);"
            "INSERT INTO notes VALUES ('MEMORY.md', 1, 1, 'stale', '');"
        )
    (linked_dir / "digest/wiki/blue-green.md").write_text("---\nstatus: contradicted\n---\n")
    graph = LinkGraph.open(linked_dir)
    assert graph.status("digest/wiki/blue-green.md") == "contradicted"
    assert edges(graph) == edges(LinkGraph.open(linked_dir, persist=False))
    graph.close()


def test_a_followed_graph_is_trusted_until_its_follower_stops(linked_dir: Path) -> None:
    graph = LinkGraph.open(linked_dir, persist=False)
    watching = [True]
    graph.followed_while(lambda: watching[0])
    (linked_dir / "memory/new.md").write_text("[[Rollback]]\n")
    graph.refresh()  # followed: the watcher will call update_file; no scan meanwhile
    assert "memory/new.md" not in graph.notes()
    graph.update_file("memory/new.md")
    assert "memory/new.md" in {e.source for e in graph.backlinks("digest/procedure/rollback.md")}
    (linked_dir / "memory/other.md").write_text("[[Rollback]]\n")
    watching[0] = False  # e.g. the watcher failed: every query scans again
    graph.refresh()
    assert "memory/other.md" in graph.notes()


def _aged(root: Path) -> None:
    """Every folder last changed an hour ago (not within its mtime's tick of being listed)."""
    hour_ago = os.stat(root).st_mtime - 3600
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, (hour_ago, hour_ago))


def test_an_unfollowed_graph_lists_only_the_folders_that_changed(
    linked_dir: Path, monkeypatch
) -> None:
    """Without a watcher a query used to stat every note (0.6 s a Studio page at 10,000 notes):
    now one stat a folder tells what to list again; adds, deletes and folder moves still show."""
    for day in range(30):
        write_files(linked_dir, {f"memory/2024-01-{day:02d}/c.md": f"[[Rollback]] {day}\n"})
    _aged(linked_dir)
    graph = LinkGraph.open(linked_dir, persist=False)
    listed: list[str] = []
    real_scandir = os.scandir

    def counted(path):
        listed.append(Path(path).relative_to(linked_dir).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    graph.refresh()
    assert listed == []  # nothing changed: no folder listed, no note stat'ed
    write_files(linked_dir, {"memory/2024-01-03/new.md": "[[Rollback]]\n"})
    (linked_dir / "memory/2024-01-04/c.md").unlink()
    (linked_dir / "memory/2024-01-05").rename(linked_dir / "memory/moved")
    graph.refresh()
    changed = ["memory/2024-01-03", "memory/2024-01-04", "memory/2024-01-05", "memory/moved"]
    assert sorted(listed) == ["memory", *changed]  # 2024-01-05: tried, gone
    sources = {e.source for e in graph.backlinks("digest/procedure/rollback.md")}
    assert "memory/2024-01-03/new.md" in sources
    assert "memory/2024-01-04/c.md" not in graph.notes()
    assert "memory/moved/c.md" in sources and "memory/2024-01-05/c.md" not in graph.notes()
    assert edges(graph) == edges(LinkGraph.open(linked_dir, persist=False))
