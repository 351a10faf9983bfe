"""Example bullets of the compaction prompt, which a small model copies into its checkpoint.

The compaction prompt shows the checkpoint's structure with one example bullet per section
("- [ ] work started but not finished, and where it stands", "- **Decision**: the reason for
it"). Measured on Qwen2.5-Coder 1.5B: four of them came back verbatim next to the real content.
Code removes such copies (read from the prompt files, every language); a section or subsection
left empty says "(none)". The card writer's examples are removed the same way
(`remecli.knowledge.summary.prompts.without_card_examples`).
"""

from __future__ import annotations

import functools
import re

from remecli.config.prompt_files import bullet_key, example_bullets
from remecli.conversation import prompts

_HEADING = re.compile(r"^#{2,3}\s")
_LANGUAGES = ("", "zh")


@functools.cache
def checkpoint_examples() -> frozenset[str]:
    """The example bullets of the checkpoint structure (after its first `## ` heading)."""
    found: set[str] = set()
    for language in _LANGUAGES:
        text = prompts.prompt("compact_system", language)
        found |= example_bullets(text[text.find("\n## ") :])
    return frozenset(found)


def without_examples(text: str, language: str = "") -> str:
    """A checkpoint's `text` without copied example bullets; a heading left with nothing under
    it gets "- (none)"."""
    examples = checkpoint_examples()
    kept = [line for line in text.splitlines() if bullet_key(line) not in examples]
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
