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
from remecli.knowledge.background.tasks import _write_record


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


def test_every_folder_a_conversation_creates_is_private(fake_llm, memory_model, tmp_path) -> None:
    """Issue 37.7: the folders made after the start (a day's cards under memory/<date>/, the
    /undo checkpoints) were 0755; every folder under the working dir is 0700."""
    from tests.cli_process import run_one_shot

    root, workspace = tmp_path / "mem", tmp_path / "ws"
    workspace.mkdir()
    fake_llm.add_tool_calls([("write", {"path": "plan/a.txt", "content": "tea\n"})])
    fake_llm.add_text("Written.")
    proc = run_one_shot(
        fake_llm.base_url,
        root,
        "write the plan",
        "tools.approval=never",
        "memory.dream.auto=false",
        cwd=workspace,
        summarize=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert _mode(workspace / "plan") == 0o755 & ~_umask()  # the user's own folder: untouched
    folders = [p for p in root.rglob("*") if p.is_dir()]
    assert any(p.parent.name == "memory" for p in folders), folders  # memory/<date>/ is there
    assert any(p.name == "checkpoints" for p in folders), folders
    loose = {str(p.relative_to(root)): oct(_mode(p)) for p in folders if _mode(p) != 0o700}
    assert loose == {}


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


# The folders made with a plain mkdir, and why they are not the memory's: every other folder is
# made by `private_dirs` (0700), the one owner.
PLAIN_MKDIR = {
    "config/privacy.py": "private_dirs itself",
    "notes/atomic_write.py": "a file that is not private (the workspace's), private_dirs else",
    "llm/tokens.py": "the tokenizer cache under ~/.cache",
    "surfaces/cli/where.py": "`remecli init FOLDER`: the user's project folder",
    "surfaces/memory_dir.py": "the memory's parent folder; the memory itself 0700",
    "surfaces/cli/read_only.py": "a temporary copy of the index, 0700 with no parents",
    "ui/tui/widgets/chat_input.py": "the working dir itself, made 0700 at the start",
}


def test_folders_are_made_by_the_one_owner() -> None:
    import re

    import remecli

    package = Path(remecli.__file__).parent
    makers = re.compile(r"\.mkdir\(|os\.makedirs\(|os\.mkdir\(")
    found = {
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if makers.search(path.read_text(encoding="utf-8"))
    }
    assert found - set(PLAIN_MKDIR) == set(), "use remecli.config.privacy.private_dirs"
