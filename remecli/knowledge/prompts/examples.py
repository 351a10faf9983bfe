"""Example bullets of the memory prompts, which a small model copies into what it writes.

The compaction prompt shows the checkpoint's structure with one example bullet per section
("- [ ] work started but not finished, and where it stands", "- **Decision**: the reason for
it"); the card writer's prompt shows a card with one per section ("- Facts worth keeping: exact
paths, names, commands, …"). Measured on Qwen2.5-Coder 1.5B: four of the checkpoint's came back
verbatim next to the real content, and the card of "please remember: …" kept the example's
`## Details` line, so a reader would take "problems that stop progress" for a fact. Code removes
such copies (read from the prompt files, every language); a checkpoint section or subsection
left empty says "(none)".
"""

from __future__ import annotations

import functools
import re

from remecli.knowledge import prompts

_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s")
_HEADING = re.compile(r"^#{2,3}\s")
_LANGUAGES = ("", "zh")
_FENCE = "```"


def _key(line: str) -> str:
    return " ".join(line.lower().split()).rstrip(".。")


def _bullets(text: str) -> set[str]:
    return {_key(line) for line in text.splitlines() if _ITEM.match(line)}


@functools.cache
def checkpoint_examples() -> frozenset[str]:
    """The example bullets of the checkpoint structure (after its first `## ` heading)."""
    found: set[str] = set()
    for language in _LANGUAGES:
        text = prompts.prompt("compact_system", language)
        found |= _bullets(text[text.find("\n## ") :])
    return frozenset(found)


@functools.cache
def card_examples() -> frozenset[str]:
    """The example bullets of the card the card writer's prompt shows (its fenced example)."""
    found: set[str] = set()
    for language in _LANGUAGES:
        text = prompts.prompt("summarize_card", language)
        start = text.find(_FENCE)
        found |= _bullets(text[start : text.find(_FENCE, start + len(_FENCE))])
    return frozenset(found)


def without_card_examples(text: str, keep: str = "") -> str:
    """A card's `text` without copied example bullets (lines also in `keep`, the card as it
    was, stay: removing them is the user's call)."""
    examples = card_examples() - {_key(line) for line in keep.splitlines()}
    lines = text.splitlines()
    kept = [line for line in lines if _key(line) not in examples]
    if len(kept) == len(lines):
        return text
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")


def without_examples(text: str, language: str = "") -> str:
    """A checkpoint's `text` without copied example bullets; a heading left with nothing under
    it gets "- (none)"."""
    examples = checkpoint_examples()
    kept = [line for line in text.splitlines() if _key(line) not in examples]
    if len(kept) == len(text.splitlines()):
        return text
    empty = prompts.EMPTY_ITEM.get(language, prompts.EMPTY_ITEM[""])
    out: list[str] = []
    for index, line in enumerate(kept):
        out.append(line)
        if not _HEADING.match(line):
            continue
        rest = [later for later in kept[index + 1 :] if later.strip()]
        if not rest or _HEADING.match(rest[0]):
            is_parent = line.startswith("## ") and bool(rest) and rest[0].startswith("### ")
            if not is_parent:
                out.append(empty)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
