"""The diff the approval question shows for a `write` or `edit` before it runs."""

from __future__ import annotations

from pathlib import Path

from remecli.tools.change_preview import change_preview
from remecli.tools.context import ToolContext


def test_a_workspace_file_is_labelled_as_git_does_and_an_absolute_path_as_it_is(
    ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    shown = change_preview("write", {"path": "notes.txt", "content": "alpha\ngamma\n"}, ctx)
    assert shown.splitlines()[:3] == ["overwrite notes.txt", "--- a/notes.txt", "+++ b/notes.txt"]
    outside = str(tmp_path / "elsewhere.conf")
    shown = change_preview("write", {"path": outside, "content": "x=1\n"}, ctx)
    assert shown.splitlines()[:3] == [
        f"new file {outside} (1 line)",
        "--- /dev/null",
        f"+++ {outside}",
    ]


def test_an_edit_shows_where_it_lands_and_one_that_will_fail_says_so(
    ctx: ToolContext, workspace: Path
) -> None:
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    shown = change_preview("edit", {"path": "a.py", "old_text": "y = 2", "new_text": "y = 3"}, ctx)
    assert shown.startswith("edit a.py at line 2\n") and "-y = 2" in shown and "+y = 3" in shown
    missing = change_preview("edit", {"path": "a.py", "old_text": "z", "new_text": "w"}, ctx)
    assert missing.startswith("edit a.py: this edit will be refused")
