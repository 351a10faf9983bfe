"""A card a small model wrote as its answer instead of calling `write`, saved as the card.

Measured on Qwen2.5-Coder 1.5B (the local-model note): asked to create the conversation's card,
it answered with the card itself — frontmatter and sections, often inside a ``` fence — and
called no tool, so nothing was stored. When the conversation has no card yet and the answer
holds one (a frontmatter block with a `name`), the summarizer writes it through the same `write`
tool the model was offered: the scope's checks and the code-set fields apply unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from remecli.knowledge.cards import slugify
from remecli.notes.frontmatter import read_frontmatter

_FENCED = re.compile(r"```[\w-]*[ \t]*\n(?P<body>---\n.*?)\n?```", re.DOTALL)
_BARE = re.compile(r"(?:^|\n)(?P<body>---\n.*)", re.DOTALL)
_TRAILING_FENCE = re.compile(r"\n```\s*$")  # the example's closing fence, copied


def card_in_answer(answer: str) -> tuple[str, str] | None:
    """(name, card text) of a card written out in `answer`, or None when it holds none."""
    for pattern in (_FENCED, _BARE):
        found = pattern.search(answer)
        if not found:
            continue
        text = _quoted(_closed(_TRAILING_FENCE.sub("", found.group("body")).strip() + "\n"))
        note = read_frontmatter(text)
        name = str(note.meta.get("name") or "").strip() if not note.problem else ""
        if name and note.body.strip():
            return name, text
    return None


def _closed(text: str) -> str:
    """`text` with the frontmatter's closing `---` put back before the first line that is not
    YAML (a heading or a blank line), when the model left it out."""
    lines = text.split("\n")
    if any(line.strip() == "---" for line in lines[1:]):
        return text
    for number, line in enumerate(lines[1:], start=1):
        if not line.strip() or line.startswith("#"):
            return "\n".join([*lines[:number], "---", *lines[number:]])
    return text


def _quoted(text: str) -> str:
    """`text` with frontmatter values that hold `: ` quoted (`description: Moved: yes` is not
    valid YAML; the 1.5B model wrote such lines)."""
    lines = text.split("\n")
    end = next((n for n, line in enumerate(lines[1:], start=1) if line.strip() == "---"), 0)
    for number in range(1, end):
        key, sep, value = lines[number].partition(": ")
        value = value.strip()
        if sep and ": " in value and value[:1] not in "\"'[{|>":
            lines[number] = f"{key}: " + json.dumps(value, ensure_ascii=False)
    return "\n".join(lines)


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
