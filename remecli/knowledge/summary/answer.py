"""A card a small model wrote as its answer instead of calling `write`, saved as the card.

Measured on Qwen2.5-Coder 1.5B (the local-model note): asked to create the conversation's card,
it answered with the card itself — frontmatter and sections, often inside a ``` fence — and
called no tool, so nothing was stored. When the conversation has no card yet and the answer
holds one (a frontmatter block with a `name`), the summarizer writes it through the same `write`
tool the model was offered: the scope's checks and the code-set fields apply unchanged. When
the card exists, the answer is merged into it by code (`remecli.knowledge.summary.merge`).
"""

from __future__ import annotations

from typing import Any

from remecli.knowledge.cards.card import slugify
from remecli.knowledge.summary.card_prompts import NOTHING_MARKER
from remecli.knowledge.summary.merge import merged_card
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.frontmatter_repair import frontmatter_blocks, without_trailing_fences


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


async def save_answered_update(tools: Any, card: str, answer: str) -> bool:
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
