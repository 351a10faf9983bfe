"""A card a small model wrote as its answer instead of calling `write`: saved as the card, or
merged into the existing card by code.

Measured on Qwen2.5-Coder 1.5B (the local-model note): asked to create the conversation's card,
it answered with the card itself — frontmatter and sections, often inside a ``` fence — and
called no tool, so nothing was stored. When the conversation has no card yet and the answer
holds one (a frontmatter block with a `name`), the summarizer writes it through the same `write`
tool the model was offered: the scope's checks and the code-set fields apply unchanged.

Asked to update the card (`read`, then `edit`), such a model answers with the whole card
rewritten instead, and what it leaves out would be lost (the card rules refuse such a change,
and nothing is saved). Merged by code (`merged_card`), every rule holds by construction:
`## Current state` is the answer's, `## Timeline` keeps its old entries in order and gains the
answer's new ones, every other section keeps its old lines and gains the new ones, and the
answer's `name`, `description` and `tags` replace the old ones when it gives them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from remecli.knowledge.cards.card import slugify
from remecli.knowledge.cards.rules import CURRENT_TITLES
from remecli.knowledge.summary.prompts import NOTHING_MARKER
from remecli.notes.frontmatter import read_frontmatter, write_frontmatter
from remecli.notes.frontmatter_repair import frontmatter_blocks, without_trailing_fences

if TYPE_CHECKING:
    from remecli.knowledge.summary.tools import MemoryFileTools

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


def _without_tail(text: str) -> str:
    """`text` without what the model put after the card: a lone `---` or fence, and the
    nothing-to-store marker it copied from the prompt (measured: "---", "", "[nothing to
    store]" after a card it wrote out)."""
    return without_trailing_fences(text, also=lambda line: NOTHING_MARKER in line.lower())


def card_in_answer(answer: str) -> tuple[str, str] | None:
    """(name, card text) of a card written out in `answer`, or None when it holds none."""
    for block in frontmatter_blocks(answer):
        text = _without_tail(block)
        note = read_frontmatter(text)
        name = str(note.meta.get("name") or "").strip() if not note.problem else ""
        if name and note.body.strip():
            return name, text
    return None


async def save_answered_card(tools: MemoryFileTools, folder: str, answer: str) -> bool:
    """Write the card found in `answer` as `<folder>/<slug of its name>.md` through `tools`
    (the run's `MemoryFileTools`); True when it was written."""
    found = card_in_answer(answer)
    if found is None:
        return False
    name, text = found
    slug = slugify(name)
    if not slug:
        return False
    await tools.write(f"{folder}/{slug}.md", text)
    return bool(tools.written)


async def save_answered_update(tools: MemoryFileTools, card: str, answer: str) -> bool:
    """Merge the card found in `answer` into the existing card `card` (relative path) and write
    it through `tools`, dropping none of its lines; True when it was written."""
    found = card_in_answer(answer)
    if found is None:
        return False
    await tools.read(card)  # the write tool replaces only a file read in this run
    old = tools.known_text(card)
    if old is None:
        return False
    await tools.write(card, merged_card(old, found[1]))
    return bool(tools.written)
