"""What remecli writes about conversations is readable by the user only (issue 15.14): the
working dir it creates is 0700; states, pending records, tool outputs, transcripts and logs 0600."""

from __future__ import annotations

import stat
from pathlib import Path

from remecli.config import load_settings
from remecli.config.locations import Locations
from remecli.config.logs import setup_logging
from remecli.conversation import persistence
from remecli.conversation.tool_results import ToolResultStore
from remecli.conversation.transcript import Transcript
from remecli.knowledge.background import _write_record


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_everything_about_a_conversation_is_private(tmp_path: Path) -> None:
    layout = Locations(tmp_path / ".reme").ensure()
    assert _mode(layout.root) == 0o700 and _mode(layout.sessions_dir) == 0o700
    persistence.write_state(layout, "s1", {"context": []}, {"summary": ""})
    assert _mode(layout.state_file("s1")) == 0o600
    Transcript(layout.transcript_file("s1")).append([{"t": "msg", "text": "my password"}])
    assert _mode(layout.transcript_file("s1")) == 0o600
    record = layout.pending_dir / "t1.json"
    _write_record(record, {"messages": []})
    assert _mode(record) == 0o600
    store = ToolResultStore(layout.tool_result_dir, threshold=10)
    _kept, saved = store.offload_detail("bash", "x" * 100)
    assert saved is not None and _mode(saved) == 0o600
    settings = load_settings([f"working_dir={layout.root}"], environ={}, cwd=tmp_path)
    assert _mode(setup_logging(settings, cwd=tmp_path)) == 0o600


def test_an_existing_working_dir_others_could_read_is_made_private(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    Locations(root).ensure()
    assert _mode(root) == 0o700  # it holds conversations (issue 25.9: tightened, and logged)
