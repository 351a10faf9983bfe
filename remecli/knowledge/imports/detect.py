"""Which agent wrote a file, and the conversation in it."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from remecli.knowledge.imports import claude_code, codex, openai_messages
from remecli.knowledge.imports.messages import ImportedConversation

Reader = Callable[[Path, "str | None"], ImportedConversation]
FORMATS: dict[str, Reader] = {
    claude_code.FORMAT: claude_code.read_claude_code,
    codex.FORMAT: codex.read_codex,
    openai_messages.FORMAT: openai_messages.read_openai_messages,
}
SNIFF_LINES = 20


class UnknownFormat(ValueError):
    """The file is none of the formats `remecli import` reads."""


def detect_format(path: Path) -> str:
    """`claude-code`, `codex` or `openai` for this file; raises `UnknownFormat` (saying what
    to do) when it is none of them."""
    if path.suffix == ".json":
        try:
            openai_messages.message_list(json.loads(path.read_text(encoding="utf-8")))
        except ValueError as exc:
            raise UnknownFormat(f"{path}: {exc}") from None
        return openai_messages.FORMAT
    entries = []
    with open(path, encoding="utf-8") as handle:
        for line in islice(handle, SNIFF_LINES):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entries.append(entry)
    if codex.looks_like(entries):
        return codex.FORMAT
    if claude_code.looks_like(entries):
        return claude_code.FORMAT
    raise UnknownFormat(
        f"{path}: not a Claude Code transcript, Codex rollout or OpenAI messages file; "
        "name the format with --format claude-code|codex|openai"
    )


def read_conversation(
    path: Path, format_name: str | None = None, session_id: str | None = None
) -> ImportedConversation:
    """The conversation in `path`, in `format_name` (detected when None)."""
    name = format_name or detect_format(path)
    if name not in FORMATS:
        raise UnknownFormat(f"unknown format {name!r}; use one of {', '.join(FORMATS)}")
    return FORMATS[name](path, session_id)
