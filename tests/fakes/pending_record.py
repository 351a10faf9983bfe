"""A summary left pending by an earlier run, written as the background summarizer records it."""

from __future__ import annotations

import json
from pathlib import Path

from agentscope.message import UserMsg

from remecli.knowledge.background.tasks import RECORD_VERSION, pending_dir_of
from remecli.notes.layout import WorkingDir


def write_pending_record(root: Path, content: str, record_id: str = "abc123abc123") -> Path:
    """One pending record (a user message of 2025-01-31) under `root`'s pending folder."""
    pending = pending_dir_of(WorkingDir(root).ensure())
    pending.mkdir(parents=True, exist_ok=True)
    message = UserMsg(name="user", content=content, created_at="2025-01-31T10:00:00")
    record = pending / f"{record_id}.json"
    fields = {"version": RECORD_VERSION, "id": record_id, "date": "2025-01-31"}
    fields |= {"created_at": "2025-01-31T10:00:00", "attempts": 0, "last_error": ""}
    record.write_text(
        json.dumps({**fields, "messages": [message.model_dump(mode="json")]}), encoding="utf-8"
    )
    return record
