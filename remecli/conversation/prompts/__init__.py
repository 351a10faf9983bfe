"""Prompt files of compaction (`<name>.md`, `<name>.zh.md`) and the checkpoint's sections."""

from __future__ import annotations

import re
from pathlib import Path

from remecli.config.prompt_files import fill, load_prompt

FOLDER = Path(__file__).parent

# The six checkpoint sections, per language; index i means the same section in every language.
SECTIONS: dict[str, tuple[str, ...]] = {
    "": (
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ),
    "zh": ("## 目标", "## 约束与偏好", "## 进展", "## 关键决策", "## 下一步", "## 关键上下文"),
}
EMPTY_ITEM = {"": "- (none)", "zh": "- （无）"}
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def prompt(name: str, language: str = "", **values: object) -> str:
    """Prompt `name` in `language`, with `{key}` placeholders filled in one pass.

    Inserted values are never re-scanned, so a conversation containing `{focus}` stays as is.
    """
    return fill(load_prompt(FOLDER, name, language), **values)


def sections(language: str) -> tuple[str, ...]:
    """Section headings for `language` (English when unknown)."""
    return SECTIONS.get(language, SECTIONS[""])


def _section_index(title: str) -> int | None:
    norm = title.strip().lower()
    for headings in SECTIONS.values():
        for index, heading in enumerate(headings):
            if heading[3:].strip().lower() == norm:
                return index
    return None


def split_sections(text: str) -> dict[int, str]:
    """Body of each known `## ` section of a checkpoint, by section index (any language)."""
    found: dict[int, str] = {}
    matches = list(_HEADING.finditer(text or ""))
    for i, match in enumerate(matches):
        index = _section_index(match.group(1))
        if index is None or index in found:
            continue
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        found[index] = text[match.end() : end].strip("\n")
    return found


def missing_sections(text: str) -> list[int]:
    """Indexes of the sections absent from `text`."""
    present = split_sections(text)
    return [i for i in range(len(SECTIONS[""])) if i not in present]


def assemble(bodies: dict[int, str], language: str) -> str:
    """A checkpoint from section bodies, in canonical order; empty sections say so."""
    parts = []
    for index, heading in enumerate(sections(language)):
        body = bodies.get(index, "").strip("\n") or EMPTY_ITEM.get(language, EMPTY_ITEM[""])
        parts.append(f"{heading}\n{body}")
    return "\n\n".join(parts) + "\n"


def render_summary_message(summary: str, checkpoint: int, language: str = "") -> str:
    """The summary wrapped as the user message the model receives before the conversation."""
    return prompt("summary_message", language, summary=summary.strip(), checkpoint=checkpoint)
