"""Prompt files of vector memory (`<name>.md` English, `<name>.zh.md` Chinese)."""

from __future__ import annotations

import re
from pathlib import Path

from remecli.config.prompt_files import load_prompt

FOLDER = Path(__file__).parent
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def prompt(name: str, language: str = "", **values: object) -> str:
    """Prompt `name` in `language` with `{key}` placeholders filled in one pass (inserted text,
    such as a conversation containing braces, is never re-scanned)."""
    template = load_prompt(FOLDER, name, language)
    return _PLACEHOLDER.sub(
        lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template
    )
