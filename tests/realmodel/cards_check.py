"""Invariants a card written by a real model must hold, whatever words it chose."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from remecli.knowledge.cards.card import MIN_DESCRIPTION_CHARS, read_card
from remecli.knowledge.summary.prompts import card_examples
from remecli.notes.layout import WorkingDir
from tests.realmodel.conversations import DAY

_SOURCE = re.compile(r"^\[\[(sessions/[^#\]]+\.jsonl)#L(\d+)-L(\d+)\]\]$")
_HEADING = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def record_ids(transcript: Path) -> list[str | None]:
    """The message id of each transcript line (None for lines that record no message)."""
    ids: list[str | None] = []
    for line in transcript.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        msg = record.get("msg") if isinstance(record, dict) else None
        ids.append(msg.get("id") if isinstance(msg, dict) else None)
    return ids


def check_card(
    wd: WorkingDir, path: Path | None, session_id: str, messages: list[Any], must_keep: tuple
) -> dict[str, Any]:
    """The card's frontmatter (after asserting every invariant on it)."""
    assert path is not None and path.is_file(), f"no card was written: {path}"
    rel = path.relative_to(wd.root).as_posix()
    assert rel.startswith(f"memory/{DAY:%Y-%m-%d}/") and rel.endswith(".md"), rel
    text = path.read_text(encoding="utf-8")
    note = read_card(text)  # raises on invalid frontmatter
    meta = note.meta
    assert str(meta.get("name") or "").strip(), f"{rel}: no name\n{text}"
    assert len(str(meta.get("description") or "")) >= MIN_DESCRIPTION_CHARS, text
    assert meta.get("session_id") == session_id and meta.get("date") == f"{DAY:%Y-%m-%d}"
    source = _SOURCE.match(str(meta.get("source_conversation")))
    assert source, f"{rel}: source_conversation is {meta.get('source_conversation')!r}"
    ids = record_ids(wd.root / source.group(1))
    first, last = int(source.group(2)), int(source.group(3))
    assert 1 <= first <= last <= len(ids), (first, last, len(ids))
    cited = {i for i in ids[first - 1 : last] if i}
    assert cited and cited <= {m.id for m in messages}, "the card cites lines of other messages"
    copied = [
        line for line in text.splitlines() if line.strip().lower().rstrip(".") in card_examples()
    ]
    assert not copied, f"{rel} holds the prompt's example lines {copied}:\n{text}"
    lowered = text.lower()
    missing = [word for word in must_keep if word.lower() not in lowered]
    assert not missing, f"{rel} lost {missing}:\n{text}"
    print(f"--- {rel}\n{text}")
    page = wd.daily_file(DAY).read_text(encoding="utf-8")
    assert f"[[{rel}|" in page, f"the day page does not link {rel}:\n{page}"
    return meta


def kept_sections(text: str) -> list[str]:
    """The card's lines outside its frontmatter and `## Current state` (which may be rewritten)."""
    body = read_card(text).body
    kept: list[str] = []
    rewritable = False
    for line in body.splitlines():
        heading = _HEADING.match(line)
        if heading:
            rewritable = heading.group(1).strip().lower() == "current state"
        if line.strip() and not rewritable:
            kept.append(line.strip())
    return kept
