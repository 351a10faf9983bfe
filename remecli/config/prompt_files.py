"""Prompt files live next to the code that uses them: `<name>.md` (English), `<name>.zh.md`."""

from __future__ import annotations

import functools
from pathlib import Path


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
