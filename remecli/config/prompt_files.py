"""Prompt files live next to the code that uses them: `<name>.md` (English), `<name>.zh.md`."""

from __future__ import annotations

import functools
import re
from pathlib import Path

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s")


@functools.cache
def load_prompt(folder: Path, name: str, language: str = "") -> str:
    """Text of prompt `name` in `folder` for `language` ("" = English, "zh" = Chinese).

    Falls back to English when a translation is missing, so a new prompt never breaks `zh`.
    """
    candidates = [folder / f"{name}.{language}.md"] if language else []
    candidates.append(folder / f"{name}.md")
    for path in candidates:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise FileNotFoundError(f"prompt '{name}' not found in {folder}")


def render(template: str, **values: object) -> str:
    """Fill `{key}` placeholders; unknown braces in the template are left alone."""
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", str(value))
    return out


def fill(template: str, **values: object) -> str:
    """Fill `{key}` placeholders in one pass: inserted values are never re-scanned, so a
    conversation containing `{focus}` stays as is; unknown braces are left alone."""
    return _PLACEHOLDER.sub(
        lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template
    )


def bullet_key(line: str) -> str:
    """A list line compared as an example bullet: lower case, spaces collapsed, no final stop."""
    return " ".join(line.lower().split()).rstrip(".。")


def example_bullets(text: str) -> set[str]:
    """The keys of the list items of a prompt's `text` (the examples a small model copies)."""
    return {bullet_key(line) for line in text.splitlines() if _ITEM.match(line)}
