"""Issue 25.10: a symlink inside the workspace that leads out of it counts as outside.

A one-shot `-p` (nobody there to approve) asked to `write` `innocent.txt`, an in-workspace
symlink to a file outside the workspace, must not overwrite that file; with the default
`tools.approval=dangerous`, write, edit, read and ls through such a link all need approval.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remecli.config.settings import ToolSettings
from remecli.notes.writer import MemoryWriter
from remecli.tools.context import ToolContext
from remecli.tools.danger import danger_reason
from tests.cli_process import run_one_shot
from tests.fakes.faulty_openai import FaultyOpenAIServer

ORIGINAL = "the outside file, not to be touched\n"


def _escape(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    outside = tmp_path / "elsewhere" / "precious.txt"
    outside.parent.mkdir()
    outside.write_text(ORIGINAL)
    (workspace / "innocent.txt").symlink_to(outside)
    (workspace / "linked-folder").symlink_to(outside.parent, target_is_directory=True)
    return workspace, outside


@pytest.mark.timeout(300)  # a real process on a shared machine
def test_one_shot_write_through_a_symlink_does_not_overwrite_the_outside_file(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    workspace, outside = _escape(tmp_path)
    fake_llm.add_tool_calls([("write", {"path": "innocent.txt", "content": "overwritten!\n"})])
    fake_llm.add_text("Done.")
    fake_llm.set_fallback("Done.")
    proc = run_one_shot(
        fake_llm.base_url,
        workspace / ".reme",
        "fill innocent.txt",
        f"tools.workspace={workspace}",
        cwd=workspace,
        timeout=280,
    )
    assert outside.read_text() == ORIGINAL, (proc.stdout, proc.stderr)
    assert (workspace / "innocent.txt").is_symlink()


def test_every_file_tool_asks_before_following_a_symlink_out(tmp_path: Path) -> None:
    workspace, outside = _escape(tmp_path)
    wd = tmp_path / ".reme"
    writer = MemoryWriter(wd)
    ctx = ToolContext.from_settings(ToolSettings(workspace=str(workspace)), wd, writer)
    calls = [
        ("write", {"path": "innocent.txt", "content": "x"}),
        ("edit", {"path": "innocent.txt", "old_text": "the", "new_text": "a"}),
        ("read", {"path": "innocent.txt"}),
        ("ls", {"path": "linked-folder"}),
        ("write", {"path": "linked-folder/new.txt", "content": "x"}),
        ("read", {"path": str(workspace / "linked-folder" / "precious.txt")}),
    ]
    for tool, args in calls:
        reason = danger_reason(tool, args, ctx)
        assert reason is not None and "outside the workspace" in reason, (tool, args, reason)
    assert danger_reason("write", {"path": "plain.txt", "content": "x"}, ctx) is None
    assert danger_reason("read", {"path": "plain.txt"}, ctx) is None
