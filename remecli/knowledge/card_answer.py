"""A card a small model wrote as its answer instead of calling `write`, saved as the card.

Measured on Qwen2.5-Coder 1.5B (the local-model note): asked to create the conversation's card,
it answered with the card itself — frontmatter and sections, often inside a ``` fence — and
called no tool, so nothing was stored. When the conversation has no card yet and the answer
holds one (a frontmatter block with a `name`), the summarizer writes it through the same `write`
tool the model was offered: the scope's checks and the code-set fields apply unchanged.
"""

from __future__ import annotations

from typing import Any

from remecli.knowledge.cards import slugify
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.frontmatter_repair import frontmatter_blocks


def card_in_answer(answer: str) -> tuple[str, str] | None:
    """(name, card text) of a card written out in `answer`, or None when it holds none."""
    for text in frontmatter_blocks(answer):
        note = read_frontmatter(text)
        name = str(note.meta.get("name") or "").strip() if not note.problem else ""
        if name and note.body.strip():
            return name, text
    return None


async def save_answered_card(tools: Any, folder: str, answer: str) -> bool:
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
