"""A one-shot command (`remecli job`, `remecli search`, …) starts no background work the user did
not ask for: no retry of pending summaries, no Auto Dream — a read-only job never calls the
model. A real process against the fake OpenAI-compatible server."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from remecli.notes.layout import WorkingDir
from tests.cli_process import run_remecli
from tests.dream.conftest import add_card
from tests.fakes.pending_record import write_pending_record
from tests.jobs.conftest import seed
from tests.surfaces.helpers import surface_settings


def _pending_summary_and_due_dream(root: Path) -> Path:
    """A summary left pending by an earlier run, and a card no dream has seen yet."""
    seed(root)
    layout = WorkingDir(root).ensure()
    add_card(layout, dt.date(2025, 1, 31), "style", "Style", "The user indents Go with tabs.")
    return write_pending_record(root, "Remember: the staging DB is db-7")


def test_read_only_commands_never_call_the_model(tmp_path: Path, fake_llm) -> None:
    root = tmp_path / ".reme"
    record = _pending_summary_and_due_dream(root)
    settings = surface_settings(root, fake_llm.base_url)
    no_dream = [*settings, "memory.dream.auto=false"]  # so a summary retry alone would show
    read = run_remecli("job", "memory_read", "--path", "MEMORY.md", *no_dream, cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    assert "stg-7" in json.loads(read.stdout)["content"]
    assert fake_llm.chat_requests() == []  # the pending summary was not retried
    listed = run_remecli("job", "memory_list", *settings, cwd=tmp_path)  # a dream is due
    assert listed.returncode == 0, listed.stderr
    assert fake_llm.chat_requests() == []  # and no Auto Dream started
    found = run_remecli("search", "make ship", *settings, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "memory/2025-01-31.md" in found.stdout
    linked = run_remecli("links", "MEMORY.md", *settings, cwd=tmp_path)
    assert linked.returncode == 0, linked.stderr
    assert fake_llm.chat_requests() == []
    assert record.is_file()  # the pending summary waits for the next session
    for proc in (read, listed, found, linked):
        assert "WARNING" not in proc.stderr and "Traceback" not in proc.stderr
