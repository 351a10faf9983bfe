"""memory_graph: the digest's or the whole memory's link graph as nodes and edges, one note's
neighbourhood, contradicted digest nodes, and the most linked notes first under a limit."""

from __future__ import annotations

import builtins
import io

import pytest

from remecli.ops import JobRunner
from remecli.ops.errors import NotFound
from tests.links.conftest import FILES, write_files

CONTRADICTED = (
    "---\nname: Old rollback\ndescription: Superseded\nkind: procedure\nstatus: contradicted\n"
    "contradictions:\n- date: '2025-02-01'\n  source: memory/2025-01-31/deploy.md\n  note: wrong\n"
    "---\nWe used to [[Rollback]] by hand.\n"
)


@pytest.fixture
async def linked(runner: JobRunner) -> JobRunner:
    write_files(runner.context.root, {**FILES, "digest/procedure/old.md": CONTRADICTED})
    return runner


def _edges(graph: dict) -> set[tuple[str, str]]:
    paths = [n["path"] for n in graph["nodes"]]
    return {(paths[source], paths[target]) for source, target in graph["edges"]}


async def test_the_digest_graph_marks_contradicted_nodes(linked: JobRunner) -> None:
    graph = await linked.run("memory_graph", {})
    nodes = {n["path"]: n for n in graph["nodes"]}
    assert set(nodes) == {
        "digest/procedure/old.md",
        "digest/procedure/release-checklist.md",
        "digest/procedure/rollback.md",
        "digest/wiki/blue-green.md",
    }
    assert nodes["digest/procedure/old.md"]["status"] == "contradicted"
    assert nodes["digest/procedure/rollback.md"]["status"] == ""
    assert nodes["digest/procedure/release-checklist.md"]["name"] == "Release checklist"
    assert nodes["digest/wiki/blue-green.md"]["kind"] == "wiki"
    assert _edges(graph) == {
        ("digest/procedure/old.md", "digest/procedure/rollback.md"),
        ("digest/procedure/release-checklist.md", "digest/procedure/rollback.md"),
    }
    # links count the whole memory: the card and the checklist link to rollback too
    assert nodes["digest/procedure/rollback.md"]["links"] == 3
    assert graph["total"] == 4 and not graph["truncated"]


async def test_the_whole_memory_and_a_limit_keep_the_most_linked(linked: JobRunner) -> None:
    everything = await linked.run("memory_graph", {"scope": "all"})
    kinds = {n["path"]: n["kind"] for n in everything["nodes"]}
    assert kinds["MEMORY.md"] == "memory"
    assert kinds["memory/2025-01-31.md"] == "day"
    assert kinds["memory/2025-01-31/deploy.md"] == "card"
    assert ("MEMORY.md", "memory/2025-01-31/deploy.md") in _edges(everything)
    top = await linked.run("memory_graph", {"scope": "all", "limit": 1})
    assert top["truncated"] and top["total"] == len(everything["nodes"])
    assert [n["path"] for n in top["nodes"]] == ["memory/2025-01-31/deploy.md"]  # 6 links
    assert top["edges"] == []


async def test_focus_is_a_notes_neighbourhood_either_way(linked: JobRunner) -> None:
    near = await linked.run("memory_graph", {"focus": "Rollback"})
    assert near["focus"] == "digest/procedure/rollback.md"
    hops = {n["path"]: n["depth"] for n in near["nodes"]}
    assert hops == {
        "digest/procedure/rollback.md": 0,
        "digest/procedure/old.md": 1,
        "digest/procedure/release-checklist.md": 1,
        "memory/2025-01-31/deploy.md": 1,
    }
    wider = await linked.run("memory_graph", {"focus": "Rollback", "depth": 2})
    assert {"MEMORY.md", "digest/wiki/blue-green.md"} <= {n["path"] for n in wider["nodes"]}
    with pytest.raises(NotFound, match="memory_search"):
        await linked.run("memory_graph", {"focus": "no such note"})


async def test_status_comes_from_the_link_graph_not_from_the_files(
    linked: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    await linked.run("memory_graph", {})  # every note parsed by now
    opened: list[str] = []
    real_open = io.open

    def counting_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    graph = await linked.run("memory_graph", {"scope": "all"})
    monkeypatch.undo()
    assert [path for path in opened if path.endswith(".md")] == []  # was one read per node
    status = {n["path"]: n["status"] for n in graph["nodes"]}
    assert status["digest/procedure/old.md"] == "contradicted"
    # changed on disk: the next graph shows the new status (the note is parsed again)
    node = linked.context.root / "digest/procedure/old.md"
    node.write_text(CONTRADICTED.replace("status: contradicted", "status: active"))
    graph = await linked.run("memory_graph", {})
    assert {n["path"]: n["status"] for n in graph["nodes"]}["digest/procedure/old.md"] == "active"
