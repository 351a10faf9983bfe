"""What one conversation saved to long-term memory, and where: its topic cards (their
`session_id`), the digest nodes that cite those cards in `## Sources`, and the changes to
MEMORY.md made since the conversation began (from the versions history), with the version
that undoes them.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

from remecli.knowledge.cards.card import read_meta
from remecli.knowledge.dream.digest import parse_node, sources_links
from remecli.notes.layout import WorkingDir
from remecli.notes.versions import Version, VersionStore

KEPT_BEFORE = ("content before the first recorded write", "edit outside")  # pre-change states


@dataclass(frozen=True)
class SavedNote:
    """A card or digest node: its path under the working dir, name and description."""

    path: str
    name: str
    description: str


@dataclass(frozen=True)
class FileChanges:
    """Versions of one memory file made during the conversation, and the version before them
    (None: the file did not exist, or its earlier versions were pruned)."""

    path: str
    changes: list[Version]
    before: int | None


@dataclass
class SessionSaves:
    """Everything `/memory` shows about one conversation."""

    session_id: str
    since: dt.datetime | None
    cards: list[SavedNote] = field(default_factory=list)
    nodes: list[SavedNote] = field(default_factory=list)
    memory_md: FileChanges | None = None


def conversation_start(layout: WorkingDir, session_id: str) -> dt.datetime | None:
    """When the conversation's transcript begins (None: nothing recorded yet)."""
    try:
        with layout.transcript_file(session_id).open(encoding="utf-8") as handle:
            first = handle.readline()
        return _parse_time(str(json.loads(first).get("at", "")))
    except (OSError, ValueError, AttributeError):
        return None


def _parse_time(text: str) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.astimezone()


def session_saves(
    layout: WorkingDir, store: VersionStore, session_id: str, since: dt.datetime | None
) -> SessionSaves:
    """The cards, digest nodes and MEMORY.md changes of conversation `session_id`."""
    saves = SessionSaves(session_id, since)
    saves.cards = _cards(layout, session_id, since)
    saves.nodes = _nodes(layout, {card.path for card in saves.cards})
    if since is not None:
        saves.memory_md = file_changes(store, "MEMORY.md", since)
    return saves


def _cards(layout: WorkingDir, session_id: str, since: dt.datetime | None) -> list[SavedNote]:
    found: list[SavedNote] = []
    if not layout.memory_dir.is_dir():
        return found
    first_day = (since.date() - dt.timedelta(days=1)).isoformat() if since else ""
    for day in sorted(layout.memory_dir.iterdir()):
        if not day.is_dir() or day.name < first_day:
            continue
        for path in sorted(day.glob("*.md")):
            meta = read_meta(path)
            if str(meta.get("session_id", "")) == session_id:
                found.append(_note(layout, path, meta))
    return found


def _nodes(layout: WorkingDir, cards: set[str]) -> list[SavedNote]:
    found: list[SavedNote] = []
    wanted = {card.removesuffix(".md") for card in cards}
    if not wanted or not layout.digest_dir.is_dir():
        return found
    for path in sorted(layout.digest_dir.rglob("*.md")):
        rel = path.relative_to(layout.root).as_posix()
        try:
            node = parse_node(rel, path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if node is None:
            continue
        cited = {link.removesuffix(".md") for link in sources_links(node.body)}
        if cited & wanted:
            found.append(_note(layout, path, node.meta))
    return found


def _note(layout: WorkingDir, path: Path, meta: dict[str, object]) -> SavedNote:
    return SavedNote(
        path.relative_to(layout.root).as_posix(),
        str(meta.get("name") or path.stem),
        str(meta.get("description") or ""),
    )


def file_changes(store: VersionStore, relative: str, since: dt.datetime) -> FileChanges | None:
    """The versions of `relative` made since `since`, and the version that undoes them."""
    versions = store.versions(relative)
    for index, version in enumerate(versions):
        moment = _parse_time(version.time)
        if moment is None or moment < since or version.source.startswith(KEPT_BEFORE):
            continue
        before = versions[index - 1].version if index > 0 else None
        return FileChanges(relative, versions[index:], before)
    return None
