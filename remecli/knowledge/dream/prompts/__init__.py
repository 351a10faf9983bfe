"""Prompt files of Auto Dream (`<name>.md`, `<name>.zh.md`)."""

from __future__ import annotations

from pathlib import Path

from remecli.config.prompt_files import load_prompt, render

FOLDER = Path(__file__).parent
USER_PART_MARKER = "<!-- user -->"


def prompt(name: str, language: str = "", **values: object) -> str:
    """Prompt `name` in `language` with `{key}` placeholders filled."""
    return render(load_prompt(FOLDER, name, language), **values)


def prompt_pair(
    name: str, language: str, last: dict[str, object], **values: object
) -> tuple[str, str]:
    """(system, user) of a two-part prompt; `last` values are filled in last (never re-scanned)."""
    template = load_prompt(FOLDER, name, language)
    system, _, user = template.partition(USER_PART_MARKER)
    return render(system.strip(), **values), render(render(user.strip(), **values), **last)
