"""What a change to a memory file may not do, checked in code before anything is written.

- `write` over an existing file may not drop any of its lines (the generated day-page block
  and card frontmatter aside): a model that read one page of a long file, or prefers `write`
  to `edit`, would otherwise erase the rest. Removing lines takes a deliberate `edit`.
- A card's `## Timeline` is append-only (every old line stays, in order) and no section may
  vanish; only `## Current state` may be rewritten; every other line of the card survives.
"""

from __future__ import annotations

import re
from collections import Counter

from remecli.knowledge.cards.card import CARD_SECTIONS
from remecli.knowledge.cards.day_page import without_block
from remecli.notes.frontmatter import read_frontmatter

CURRENT_TITLES = tuple(titles[0].lower() for titles in CARD_SECTIONS.values())
TIMELINE_TITLES = tuple(titles[1].lower() for titles in CARD_SECTIONS.values())
SHOWN_LINES = 3
_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$")


def _content_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _sample(lines: list[str]) -> str:
    shown = "; ".join(repr(line[:80]) for line in lines[:SHOWN_LINES])
    return shown + (f" and {len(lines) - SHOWN_LINES} more" if len(lines) > SHOWN_LINES else "")


def dropped_lines(old: str, new: str) -> list[str]:
    """Lines of `old` (outside the generated block) missing from `new`, counting repeats."""
    remaining = Counter(_content_lines(without_block(new)))
    lost: list[str] = []
    for line in _content_lines(without_block(old)):
        if remaining[line] > 0:
            remaining[line] -= 1
        else:
            lost.append(line)
    return lost


def write_drop_problem(name: str, old: str, new: str) -> str | None:
    """Why replacing `old` with `new` through `write` is refused, or None when it is fine."""
    old_body, new_body = _body(old), _body(new)
    lost = dropped_lines(old_body, new_body)
    if not lost:
        return None
    total = len(_content_lines(without_block(old_body)))
    return (
        f"Refused: this `write` would drop {len(lost)} of the {total} lines of {name} "
        f"({_sample(lost)}); nothing was written. Use `edit` to add or change lines "
        "(read the whole file first if it has several pages)."
    )


def _body(text: str) -> str:
    return read_frontmatter(text).body


def sections(body: str) -> list[tuple[str, list[str]]]:
    """(lower-case `## ` title, or "" before the first one; its content lines) in order."""
    found: list[tuple[str, list[str]]] = [("", [])]
    for raw in body.splitlines():
        match = _HEADING.match(raw.strip())
        if match:
            found.append((match.group(1).strip().lower(), []))
        elif raw.strip():
            found[-1][1].append(raw.strip())
    return found


def _is_subsequence(needles: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(line == item for item in it) for line in needles)


def card_change_problem(name: str, old: str, new: str) -> str | None:
    """Why changing card `old` into `new` is refused (either tool), or None when it is fine."""
    old_body, new_body = _body(old), _body(new)
    new_sections = sections(new_body)
    by_title: dict[str, list[str]] = {}
    for title, lines in new_sections:
        by_title.setdefault(title, []).extend(lines)
    everything = Counter(line for _, lines in new_sections for line in lines)
    lost: list[str] = []
    for title, lines in sections(old_body):
        if title and title not in by_title:
            return (
                f"Refused: the section `## {title}` of {name} would disappear; keep every "
                "section (only `## Current state` may be rewritten). Nothing was written."
            )
        if title in CURRENT_TITLES:
            continue
        if title in TIMELINE_TITLES:
            if not _is_subsequence(lines, by_title[title]):
                return (
                    f"Refused: `## {title}` of {name} is append-only: keep its existing lines "
                    "unchanged and in order, add new entries after them. Nothing was written."
                )
            continue
        for line in lines:
            if everything[line] > 0:
                everything[line] -= 1
            else:
                lost.append(line)
    if lost:
        return (
            f"Refused: this change would drop {len(lost)} line(s) of {name} ({_sample(lost)}); "
            "only `## Current state` may be rewritten, everything else is kept (merge, do not "
            "delete). Nothing was written."
        )
    return None
