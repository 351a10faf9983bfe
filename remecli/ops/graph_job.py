"""memory_graph: the link graph as nodes and edges — the digest, the whole memory, or one note's
neighbourhood — with each node's kind and whether Auto Dream marked it contradicted (the
`status:` the link graph keeps of each note: no note file is read here)."""

from __future__ import annotations

import asyncio
import re
from collections import deque
from typing import Literal

from pydantic import Field

from remecli.notes.links import LinkGraph
from remecli.ops.context import JobContext
from remecli.ops.errors import NotFound
from remecli.ops.registry import JOBS, JobParams, JobResult

MAX_NODES = 10_000
_DAY = re.compile(r"memory/\d{4}-\d{2}-\d{2}\.md")
_CARD = re.compile(r"memory/\d{4}-\d{2}-\d{2}/[^/]+\.md")


class GraphParams(JobParams["GraphResult"]):
    scope: Literal["digest", "all"] = Field(
        "digest", description="digest: the digest's nodes; all: every note of the memory"
    )
    focus: str | None = Field(
        None,
        min_length=1,
        description="A note (path or name): only its neighbourhood, over the whole memory",
    )
    depth: int = Field(1, ge=1, le=2, description="Hops around `focus` (links either way)")
    limit: int = Field(
        2_000, ge=1, le=MAX_NODES, description="Most nodes returned (the most linked first)"
    )


class GraphNode(JobResult):
    path: str
    name: str
    kind: str = Field(description="memory, day, card, personal, procedure, wiki or note")
    status: str = Field(description="A digest node's status (active, contradicted) or ''")
    links: int = Field(description="Links to and from it within the whole memory")
    depth: int = Field(description="Hops from `focus` (0 without one)")


class GraphResult(JobResult):
    scope: str
    focus: str | None = Field(description="The focused note's path (None: no focus)")
    nodes: list[GraphNode]
    edges: list[tuple[int, int]] = Field(
        description="Links between listed nodes, one per pair: [source, target] indexes in `nodes`"
    )
    total: int = Field(description="Nodes in scope before `limit`")
    truncated: bool


def node_kind(path: str) -> str:
    """What part of the memory a note belongs to."""
    if path == "MEMORY.md":
        return "memory"
    if _DAY.fullmatch(path):
        return "day"
    if _CARD.fullmatch(path):
        return "card"
    parts = path.split("/")
    if parts[0] == "digest" and len(parts) >= 3 and parts[1] in ("personal", "procedure", "wiki"):
        return parts[1]
    return "note"


def node_status(graph: LinkGraph, path: str) -> str:
    """The `status` field of a digest node's frontmatter ('' when absent or not the digest),
    as the link graph last parsed it."""
    return graph.status(path) if path.startswith("digest/") else ""


def _around(out: dict[str, set[str]], start: str, depth: int) -> dict[str, int]:
    """Notes within `depth` hops of `start`, links followed either way, with their hops."""
    into: dict[str, set[str]] = {}
    for source, targets in out.items():
        for target in targets:
            into.setdefault(target, set()).add(source)
    hops = {start: 0}
    queue = deque([start])
    while queue:
        path = queue.popleft()
        if hops[path] >= depth:
            continue
        for neighbour in out.get(path, set()) | into.get(path, set()):
            if neighbour not in hops:
                hops[neighbour] = hops[path] + 1
                queue.append(neighbour)
    return hops


def build_graph(graph: LinkGraph, params: GraphParams) -> GraphResult:
    """The nodes and edges `params` asks for, from an up-to-date link graph."""
    out = graph.adjacency()
    notes = sorted(out)
    degree = dict.fromkeys(notes, 0)
    for source, targets in out.items():
        degree[source] += len(targets)
        for target in targets:
            degree[target] += 1
    focus = None
    if params.focus is not None:
        focus = graph.locate(params.focus)
        if focus is None or focus not in out:
            raise NotFound(f"no note {params.focus!r}; use memory_list or memory_search")
        hops = _around(out, focus, params.depth)
    else:
        in_scope = [p for p in notes if params.scope == "all" or p.startswith("digest/")]
        hops = dict.fromkeys(in_scope, 0)
    ranked = sorted(hops, key=lambda p: (hops[p], -degree[p], p))
    chosen = ranked[: params.limit]
    kept = set(chosen)
    nodes = [
        GraphNode(
            path=path,
            name=graph.describe(path)["name"],
            kind=node_kind(path),
            status=node_status(graph, path),
            links=degree[path],
            depth=hops[path],
        )
        for path in sorted(chosen)
    ]
    index = {node.path: number for number, node in enumerate(nodes)}
    edges = [
        (index[source], index[target])
        for source in sorted(kept)
        for target in sorted(out[source] & kept)
    ]
    return GraphResult(
        scope=params.scope,
        focus=focus,
        nodes=nodes,
        edges=edges,
        total=len(hops),
        truncated=len(chosen) < len(hops),
    )


@JOBS.define("memory_graph", params=GraphParams, result=GraphResult, read_only=True)
async def memory_graph(ctx: JobContext, params: GraphParams) -> GraphResult:
    """The link graph as nodes and edges: the digest (`scope`), the whole memory, or the
    neighbourhood of one note (`focus`, `depth` hops); contradicted digest nodes have
    `status: contradicted`."""
    from remecli.ops.note_jobs import link_graph

    def build() -> GraphResult:
        with link_graph(ctx) as graph:
            return build_graph(graph, params)

    return await asyncio.to_thread(build)
