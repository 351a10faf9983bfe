"""An updated card a small model wrote as its answer, merged into the existing card by code.

Asked to update a conversation's card (`read`, then `edit`), a small local model answers with
the whole card rewritten instead, and what it leaves out would be lost (the card rules refuse
such a change, and nothing is saved). Merged by code, every rule holds by construction:
`## Current state` is the answer's, `## Timeline` keeps its old entries in order and gains the
answer's new ones, every other section keeps its old lines and gains the new ones, and the
answer's `name`, `description` and `tags` replace the old ones when it gives them.
"""

from __future__ import annotations

import re
from typing import Any

from remecli.knowledge.cards.rules import CURRENT_TITLES
from remecli.notes.frontmatter import read_frontmatter, write_frontmatter

_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$")
MODEL_FIELDS = ("name", "description", "tags")

Section = tuple[str, list[str]]  # (heading line or "" before the first, content lines)


def _sections(body: str) -> list[Section]:
    found: list[Section] = [("", [])]
    for raw in body.splitlines():
        line = raw.rstrip()
        if _HEADING.match(line.strip()):
            found.append((line.strip(), []))
        elif line.strip():
            found[-1][1].append(line)
    return found


def _title(heading: str) -> str:
    match = _HEADING.match(heading)
    return match.group(1).strip().lower() if match else ""


def _merged_lines(title: str, old: list[str], new: list[str] | None) -> list[str]:
    if new is None:
        return old
    if title in CURRENT_TITLES:
        return new or old
    known = {line.strip() for line in old}
    return old + [line for line in new if line.strip() not in known]


def merged_card(old: str, answered: str) -> str:
    """`old` updated with the card in `answered`, dropping none of `old`'s kept lines."""
    before, after = read_frontmatter(old), read_frontmatter(answered)
    meta: dict[str, Any] = dict(before.meta)
    for key in MODEL_FIELDS:
        if after.meta.get(key):
            meta[key] = after.meta[key]
    new_sections = _sections(after.body)
    by_title = {_title(heading): lines for heading, lines in new_sections if heading}
    parts: list[str] = []
    seen: set[str] = set()
    for heading, lines in _sections(before.body):
        title = _title(heading)
        seen.add(title)
        if not heading:  # the `# Title` line and anything before the first section
            kept = lines or new_sections[0][1]
            parts.append("\n".join(kept))
            continue
        parts.append("\n".join([heading, *_merged_lines(title, lines, by_title.get(title))]))
    for heading, lines in new_sections:
        if heading and _title(heading) not in seen:  # a section the old card lacks
            parts.append("\n".join([heading, *lines]))
    body = "\n\n".join(part for part in parts if part.strip()) + "\n"
    return write_frontmatter(meta, body, MODEL_FIELDS)
