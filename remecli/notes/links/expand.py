"""Progressive expansion: the neighbours of a note, by name and description only (no bodies).

`expand(results, graph)` adds `"links": {"out": [...], "in": [...]}` to each search result;
`neighbours(graph, path, depth, direction)` is what `remecli links` and `memory_links` return.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from remecli.notes.links.graph import Edge, LinkGraph

MAX_LINKS = 10
Direction = Literal["in", "out", "both"]


def _unique_targets(edges: Iterable[Edge], attribute: str, exclude: str) -> list[str]:
    seen: dict[str, None] = {}
    for edge in edges:
        path = getattr(edge, attribute)
        if path is not None and path != exclude:
            seen.setdefault(path, None)
    return list(seen)


def link_summary(
    graph: LinkGraph, path: str, limit: int = MAX_LINKS
) -> dict[str, list[dict[str, str]]]:
    """`{"out": [...], "in": [...]}`: up to `limit` distinct neighbours per direction."""
    out, into = graph.neighbour_paths(path, limit)
    return {"out": [graph.describe(p) for p in out], "in": [graph.describe(p) for p in into]}


def expand(
    results: list[dict[str, object]], graph: LinkGraph, limit: int = MAX_LINKS
) -> list[dict[str, object]]:
    """Copies of search `results` (dicts with a working-dir-relative "path"), each with links."""
    cache: dict[str, dict[str, list[dict[str, str]]]] = {}
    expanded: list[dict[str, object]] = []
    for result in results:
        path = str(result.get("path", ""))
        if path not in cache:
            cache[path] = link_summary(graph, path, limit)
        expanded.append({**result, "links": cache[path]})
    return expanded


def _walk(
    graph: LinkGraph, start: str, depth: int, forward: bool, limit: int
) -> list[dict[str, str | int]]:
    """Breadth-first neighbours up to `depth` hops, each once, nearest first."""
    seen = {start}
    frontier = [start]
    found: list[dict[str, str | int]] = []
    for hop in range(1, depth + 1):
        following: list[str] = []
        for path in frontier:
            edges = graph.outlinks(path) if forward else graph.backlinks(path)
            attribute = "target" if forward else "source"
            for neighbour in _unique_targets(edges, attribute, path):
                if neighbour in seen:
                    continue
                seen.add(neighbour)
                following.append(neighbour)
                found.append({**graph.describe(neighbour), "depth": hop, "via": path})
                if len(found) >= limit:
                    return found
        frontier = following
        if not frontier:
            break
    return found


def neighbours(
    graph: LinkGraph,
    path: str,
    depth: int = 1,
    direction: Direction = "both",
    limit: int = 200,
) -> dict[str, object]:
    """`{"path", "name", "description", "out": [...], "in": [...], "dangling": [...]}`.

    Each neighbour carries `depth` (hops from `path`) and `via` (the note it was reached from).
    `dangling` lists the links written in `path` that point nowhere (target and line).
    """
    depth = max(1, depth)
    result: dict[str, object] = {**graph.describe(path), "out": [], "in": []}
    if direction in ("out", "both"):
        result["out"] = _walk(graph, path, depth, True, limit)
    if direction in ("in", "both"):
        result["in"] = _walk(graph, path, depth, False, limit)
    result["dangling"] = [
        {"target": edge.link.target, "line": edge.link.line}
        for edge in graph.outlinks(path)
        if edge.target is None
    ]
    return result
