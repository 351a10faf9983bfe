"""`MEMORY.md` kept within its prompt budget by consolidation, never by silent cuts.

Only the head of `MEMORY.md` enters the system prompt (`memory.memory_md_head_lines` lines,
`memory.memory_md_max_tokens` tokens). When the file grows past that budget, its last sections
(`## ...`, the user's or the agent's; never the text before the first section, nor the
generated digest block) move, word for word, into digest nodes
`digest/personal/memory-<section>.md`, and each leaves one line in `MEMORY.md` under its
heading: a wikilink to where it went, how many lines, and when. Sections move from the end
until the file is back under 80% of the budget. Nothing is dropped: the node holds the
section, both writes are versioned (`remecli memory history`), and a `MEMORY.md` changed
meanwhile is never overwritten (the new nodes are removed again and the move is retried at
the next dream).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from remecli.knowledge.cards.card import join_frontmatter, slugify
from remecli.knowledge.memory_md.block import BLOCK_END, BLOCK_START
from remecli.notes.files import read_memory_text
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter

log = logging.getLogger(__name__)
HEADROOM = 0.8  # a consolidated MEMORY.md is left at most this share of its budget
MIN_LINES = 3  # a section shorter than this is not worth a pointer
MOVED_FROM = "MEMORY.md"
_H2 = re.compile(r"^##\s+(.+?)\s*$")


@dataclass
class Section:
    """A `## heading` of MEMORY.md and its lines (heading included), `[start, end)` lines."""

    heading: str
    start: int
    end: int


def sections(lines: list[str]) -> list[Section]:
    """The movable sections: `## ` headings outside the generated digest block."""
    found: list[Section] = []
    inside = False
    for number, line in enumerate(lines):
        if line.strip() == BLOCK_START:
            inside = True
            if found and found[-1].end == -1:
                found[-1].end = number
            continue
        if line.strip() == BLOCK_END:
            inside = False
            continue
        heading = _H2.match(line)
        if heading and not inside:
            if found and found[-1].end == -1:
                found[-1].end = number
            found.append(Section(heading.group(1), number, -1))
    if found and found[-1].end == -1:
        found[-1].end = len(lines)
    return [s for s in found if s.end - s.start - 1 >= MIN_LINES]


def over_budget(text: str, max_lines: int, max_tokens: int, count: Callable[[str], int]) -> bool:
    """True when more of `text` than its prompt budget would be left out of the prompt."""
    lines = text.count("\n") + (not text.endswith("\n"))
    if max_lines > 0 and lines > max_lines:
        return True
    return max_tokens > 0 and len(text.encode()) > max_tokens and count(text) > max_tokens


def _node(section: Section, lines: list[str], today: dt.date) -> str:
    moved = _filled(lines, section)
    meta = {
        "name": section.heading,
        "description": f"The section “{section.heading}” of MEMORY.md ({moved} lines), moved "
        f"here on {today:%Y-%m-%d} to keep MEMORY.md within its prompt budget",
        "kind": "personal",
        "sources": 1,
        "first_seen": f"{today:%Y-%m-%d}",
        "last_confirmed": f"{today:%Y-%m-%d}",
        "status": "active",
        "moved_from": MOVED_FROM,
    }
    body = "\n".join(lines[section.start + 1 : section.end]).strip("\n")
    sources = f"## Sources\n- Moved word for word from [[{MOVED_FROM}]] on {today:%Y-%m-%d}.\n"
    return join_frontmatter(meta, f"{body}\n\n{sources}")


def consolidate(
    layout: WorkingDir,
    writer: MemoryWriter,
    *,
    max_lines: int,
    max_tokens: int,
    count: Callable[[str], int],
    today: dt.date,
) -> list[str]:
    """Move `MEMORY.md`'s last sections into digest nodes until it fits its budget; the
    nodes written (relative paths), none when it already fits or cannot be changed now."""
    path = layout.memory_md
    try:
        current = read_memory_text(path, keep_bytes=True)
    except FileNotFoundError:
        return []
    if not over_budget(current, max_lines, max_tokens, count):
        return []
    lines = current.splitlines()
    goal_lines, goal_tokens = int(max_lines * HEADROOM), int(max_tokens * HEADROOM)
    moved: list[tuple[Section, str]] = []
    for section in reversed(sections(lines)):
        rel = _free_path(layout, section.heading, {r for _, r in moved})
        moved.append((section, rel))
        kept = _with_pointers(lines, moved, today)
        if not over_budget(kept, goal_lines, goal_tokens, count):
            break
    if not moved:
        return []
    written: list[str] = []
    for section, rel in moved:
        writer.write(
            layout.root / rel, _node(section, lines, today), source="dream (MEMORY.md budget)"
        )
        written.append(rel)
    try:
        writer.write(
            path,
            _with_pointers(lines, moved, today),
            source="dream (MEMORY.md budget)",
            allow_shrink=True,
            expected=current,
        )
    except ChangedMeanwhile:
        for rel in written:
            writer.remove(layout.root / rel, source="dream (MEMORY.md changed meanwhile)")
        log.info("MEMORY.md changed during its consolidation; retried at the next dream")
        return []
    return written


def _filled(lines: list[str], section: Section) -> int:
    """The section's lines that are not blank (what the pointer counts)."""
    return sum(1 for line in lines[section.start + 1 : section.end] if line.strip())


def _free_path(layout: WorkingDir, heading: str, taken: set[str]) -> str:
    base = f"digest/personal/memory-{slugify(heading) or 'section'}"
    rel, number = f"{base}.md", 2
    while rel in taken or (layout.root / rel).exists():
        rel, number = f"{base}-{number}.md", number + 1
    return rel


def _with_pointers(lines: list[str], moved: list[tuple[Section, str]], today: dt.date) -> str:
    out = list(lines)
    for section, rel in sorted(moved, key=lambda item: -item[0].start):
        count = _filled(lines, section)
        pointer = (
            f"- [[{rel}|{section.heading}]]: {count} lines moved there on {today:%Y-%m-%d} "
            "(MEMORY.md is kept within its prompt budget; `read` it there)"
        )
        out[section.start + 1 : section.end] = [pointer, ""]
    return "\n".join(out).rstrip("\n") + "\n"
