"""Recovery of what an interrupted dream left in `digest/` (issue 25.18).

Dreams before staging let the integration agent write nodes directly; a dream killed after such
a write and before its receipt left a node without provenance, which every later dream then
failed on. The sign is exact: the file's newest version was written by the dream (`source:
dream`) and its content is still that version, yet it lacks `last_confirmed`, which the code
sets on every node it accepts. At the start of each run such a node is

- adopted when it is a valid node: its provenance is set by code from its own `## Sources`
  (CREATE when it had no earlier version, else CORROBORATE or REFINE against that version);
- rolled back through the version history otherwise: the last version before the interrupted
  writes is restored, or the file removed when it had none (the removal is a version too).

Nothing is done without history (the dream's writes cannot be told from the user's then).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from remecli.knowledge.dream.digest import (
    body_without_sources,
    node_problem,
    parse_node,
    snapshot,
    sources_links,
    with_provenance,
)
from remecli.notes.layout import WorkingDir
from remecli.notes.versions import VersionNotFound, sha256_of
from remecli.notes.writer import MemoryWriteError, MemoryWriter

log = logging.getLogger(__name__)
DREAM_SOURCE = "dream"
ADOPTED, ROLLED_BACK, REMOVED = "ADOPTED", "ROLLED BACK", "REMOVED"


@dataclass
class Recovered:
    """One node an interrupted dream left, and what recovery did with it."""

    path: str
    action: str  # ADOPTED, ROLLED BACK or REMOVED
    before: str | None
    after: str | None
    version: int | None


def is_confirmed(text: str | None) -> bool:
    """True when `text` is a node whose provenance the code set (it has `last_confirmed`)."""
    node = parse_node("digest/x/y.md", text) if text is not None else None
    return node is not None and bool(node.meta.get("last_confirmed"))


def recover_interrupted(
    working_dir: WorkingDir, writer: MemoryWriter, today: dt.date
) -> list[Recovered]:
    """Adopt or roll back every node an interrupted dream left (see the module doc)."""
    if not writer.history_enabled:
        return []
    done = []
    for rel, text in snapshot(working_dir).items():
        if is_confirmed(text):
            continue
        try:
            recovered = _recover(working_dir, writer, rel, text, today)
        except (OSError, MemoryWriteError, VersionNotFound) as exc:
            log.warning("could not recover %s, left by an interrupted dream: %s", rel, exc)
            continue
        if recovered is not None:
            done.append(recovered)
    return done


def _recover(
    working_dir: WorkingDir, writer: MemoryWriter, rel: str, text: str, today: dt.date
) -> Recovered | None:
    versions = writer.history(rel)
    if not versions or versions[-1].source != DREAM_SOURCE or versions[-1].deleted:
        return None  # not the dream's write: the user's node, left alone
    if versions[-1].sha256 != sha256_of((working_dir.root / rel).read_bytes()):
        return None  # changed since the dream wrote it
    previous, previous_text = None, None
    for version in reversed(versions[:-1]):
        if version.deleted:
            break
        content = writer.store.content(rel, version.version).decode("utf-8", errors="replace")
        if version.source == DREAM_SOURCE and not is_confirmed(content):
            continue  # an earlier write of the same interrupted agent
        previous, previous_text = version.version, content
        break
    if node_problem(rel, text) is None:
        return _adopt(writer, rel, text, previous_text, today)
    source = "dream (recovery: rolled back a node an interrupted dream left invalid)"
    if previous is not None:
        result = writer.restore(rel, previous, source=source)
        return Recovered(rel, ROLLED_BACK, text, previous_text, result.version)
    removed = writer.remove(rel, source=source)
    return Recovered(rel, REMOVED, text, None, removed.version if removed else None)


def _adopt(
    writer: MemoryWriter, rel: str, text: str, previous: str | None, today: dt.date
) -> Recovered:
    """Set the provenance of a valid node the interrupted dream wrote, from its Sources."""
    node = parse_node(rel, text)
    assert node is not None, "checked by node_problem"
    cards = [link for link in sources_links(node.body) if link.startswith("memory/")]
    if previous is None:
        action = "CREATE"
    elif body_without_sources(previous) == body_without_sources(text):
        action = "CORROBORATE"
    else:
        action = "REFINE"
    adopted = with_provenance(rel, text, previous, action=action, cards=cards, today=today)
    result = writer.write(
        rel,
        adopted,
        source="dream (recovery: adopted a node an interrupted dream wrote)",
        allow_shrink=True,
        expected=text,
    )
    return Recovered(rel, ADOPTED, text, adopted, result.version)
