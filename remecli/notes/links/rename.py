"""Rename a note and keep every link to it valid; delete a note and say what still links there.

Both go through the memory writer, so every file they change or remove keeps its previous
content as a version (`remecli memory history` / `restore`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from remecli.notes.file_service import FileService
from remecli.notes.links.graph import Edge, LinkGraph
from remecli.notes.links.parse import WikiLink
from remecli.notes.links.resolve import has_extension
from remecli.notes.writer import MemoryWriteError, MemoryWriter

log = logging.getLogger(__name__)


class RenameError(MemoryWriteError):
    """A rename or delete that cannot be done; the message says why and what to do."""


class NotANote(RenameError):
    """The path is not a memory note (MEMORY.md, *.md under memory/ or digest/)."""


class NoteMissing(RenameError):
    """The note to rename or delete does not exist."""


class NameTaken(RenameError):
    """The new name is the note's own or another note's."""


class UndoFailed(RenameError):
    """A rename failed midway and could not be fully undone."""


@dataclass
class RenameReport:
    """What a rename did: the move and the notes whose links were rewritten."""

    old: str
    new: str
    rewritten: list[str] = field(default_factory=list)


def _relative(writer: MemoryWriter, path: str) -> str:
    relative = FileService(writer).memory_note(path)  # the one rule of what a note is
    if relative is None:
        raise NotANote(
            f"{path} is not a memory note: only MEMORY.md and *.md under memory/ or digest/."
        )
    return relative


def _link_text(link: WikiLink, target: str, table: bool) -> str:
    text = target + (f"#{link.anchor}" if link.anchor else "")
    if link.alias:
        text += ("\\|" if table else "|") + link.alias
    return f"[[{text}]]"


def _new_target(graph: LinkGraph, source: str, link: WikiLink, wanted: str) -> str:
    """The shortest way to write a link from `source` to `wanted`, in the link's own style."""
    stem = wanted.rsplit("/", 1)[-1].removesuffix(".md")
    candidates = []
    if "/" not in link.target and not has_extension(link.target):
        candidates.append(stem)
    if not has_extension(link.target):
        candidates.append(wanted.removesuffix(".md"))
    candidates.append(wanted)
    for candidate in candidates:
        if graph.resolve(source, candidate) == wanted:
            return candidate
    return wanted


def _rewrite(
    graph: LinkGraph, writer: MemoryWriter, source: str, fixes: list[tuple[WikiLink, str]], why: str
) -> str | None:
    """Rewrite the given links of `source` (link → new target path) on their lines; returns
    the text before (None: nothing changed)."""
    target_file = writer.root / source
    with open(target_file, encoding="utf-8", errors="surrogateescape", newline="") as handle:
        before = handle.read()  # CRLF kept: the writer compares against the bytes on disk
    lines = before.split("\n")
    for link, wanted in fixes:
        number = link.line - 1
        if not 0 <= number < len(lines):
            continue
        new_target = _new_target(graph, source, link, wanted)
        for table in (False, True):
            old_text = _link_text(link, link.target, table)
            if old_text in lines[number]:
                lines[number] = lines[number].replace(old_text, _link_text(link, new_target, table))
                break
    after = "\n".join(lines)
    if after == before:
        return None
    writer.write(source, after, source=why, allow_shrink=True, expected=before)
    graph.update_file(source)
    return before


def rename(graph: LinkGraph, writer: MemoryWriter, old: str, new: str) -> RenameReport:
    """Move note `old` to `new` and rewrite every link that pointed at it (and its own
    relative links), so each keeps its target. Raises RenameError / MemoryWriteError."""
    graph.sync()
    old_rel, new_rel = _relative(writer, old), _relative(writer, new)
    if old_rel == new_rel:
        raise NameTaken(f"{old_rel} already has that name.")
    if not (writer.root / old_rel).is_file():
        raise NoteMissing(f"{old_rel} does not exist.")
    if (writer.root / new_rel).exists():
        raise NameTaken(f"{new_rel} exists already: pick another name or remove it first.")
    inbound = [edge for edge in graph.backlinks(old_rel) if edge.source != old_rel]
    own = graph.outlinks(old_rel)
    content = (writer.root / old_rel).read_bytes()
    undo: list[tuple[str, Callable[[], object]]] = []  # what to do if a later step fails
    try:
        writer.write(new_rel, content, source=f"renamed from {old_rel}", expected=None)
        undo.append((new_rel, lambda: writer.remove(new_rel, source="rename undone")))
        writer.remove(old_rel, source=f"renamed to {new_rel}")
        undo.append(
            (old_rel, lambda: writer.write(old_rel, content, source="rename undone", expected=None))
        )
        graph.update_file(old_rel)
        graph.update_file(new_rel)
        return _retarget(graph, writer, old_rel, new_rel, own, inbound, undo)
    except Exception as exc:
        _undo(graph, undo, old_rel, new_rel, exc)
        raise


def _retarget(
    graph: LinkGraph,
    writer: MemoryWriter,
    old_rel: str,
    new_rel: str,
    own: list[Edge],
    inbound: list[Edge],
    undo: list[tuple[str, Callable[[], object]]],
) -> RenameReport:
    """Rewrite the moved note's own relative links and every link that pointed at it."""
    report = RenameReport(old_rel, new_rel)
    why = f"links retargeted: {old_rel} → {new_rel}"
    own_fixes = [
        (edge.link, new_rel if edge.target == old_rel else edge.target)
        for edge in own
        if edge.target is not None
        and graph.resolve(new_rel, edge.link.target)
        != (new_rel if edge.target == old_rel else edge.target)
    ]
    by_source: dict[str, list[tuple[WikiLink, str]]] = {}
    for edge in inbound:
        if graph.resolve(edge.source, edge.link.target) != new_rel:
            by_source.setdefault(edge.source, []).append((edge.link, new_rel))
    jobs = ([(new_rel, own_fixes)] if own_fixes else []) + sorted(by_source.items())
    for source, fixes in jobs:
        before = _rewrite(graph, writer, source, fixes, why)
        if before is not None:
            report.rewritten.append(source)
            undo.append((source, partial(_put_back, writer, source, before)))
    return report


def _put_back(writer: MemoryWriter, path: str, text: str) -> None:
    writer.write(path, text, source="rename undone", allow_shrink=True)


def _undo(
    graph: LinkGraph,
    undo: list[tuple[str, Callable[[], object]]],
    old_rel: str,
    new_rel: str,
    cause: Exception,
) -> None:
    """Put back what a failed rename changed, newest first (each step keeps a version)."""
    stuck = []
    for path, step in reversed(undo):
        try:
            step()
        except Exception:
            log.exception("could not undo the rename step on %s", path)
            stuck.append(path)
        graph.update_file(path)
    if stuck:
        raise UndoFailed(
            f"Renaming {old_rel} to {new_rel} failed ({cause}) and could not be fully undone "
            f"for {', '.join(stuck)}: their earlier content is in `remecli memory history`."
        ) from cause


def still_linking(graph: LinkGraph, path: str) -> list[Edge]:
    """Links from other notes that point at `path`."""
    return [edge for edge in graph.backlinks(path) if edge.source != path]


def delete(graph: LinkGraph, writer: MemoryWriter, path: str) -> list[Edge]:
    """Delete note `path` (kept in its history) and return the links that now point nowhere."""
    graph.sync()
    relative = _relative(writer, path)
    if not (writer.root / relative).is_file():
        raise NoteMissing(f"{relative} does not exist.")
    linking = still_linking(graph, relative)
    writer.remove(relative, source="deleted")
    graph.update_file(relative)
    return linking
