"""Where the file tools (read, write, edit, ls) may go without asking: the one rule.

A file tool's path counts by its real path (symlinks followed): inside the workspace it runs as
the approval mode says; anywhere else (a temp folder too) it needs the user's approval for that
exact call in every mode, `never` included. remecli's own working folder (memory files, saved
tool outputs) is the exception, unless a symlink in the workspace is what leads there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from remecli.notes.file_service.sniff import leaves_workspace
from remecli.tools.context import ToolContext
from remecli.tools.danger_types import Danger

FILE_TOOLS = frozenset({"read", "write", "edit", "ls"})
OUTSIDE = "outside-workspace"


def file_reach(tool_name: str, args: Mapping[str, Any], ctx: ToolContext) -> Danger | None:
    """Why a file tool's call leaves the workspace, or None when it stays (or is no file tool)."""
    if tool_name not in FILE_TOOLS or not isinstance(args, Mapping):
        return None
    raw = args.get("path")
    path = raw if isinstance(raw, str) else ""
    if not path:
        if tool_name != "ls":
            return None  # the tool itself reports the missing path
        path = "."
    target = ctx.resolve(path)
    real = os.path.realpath(target)
    if ctx.is_inside_workspace(real):
        return None
    if leaves_workspace(target, ctx.workspace):
        return Danger(
            OUTSIDE, f"{tool_name} outside the workspace, through a symlink: {path} → {real}"
        )
    if _in_working_dir(real, ctx):
        return None
    shown = path if str(target) == real else f"{path} → {real}"
    return Danger(OUTSIDE, f"{tool_name} outside the workspace: {shown}")


def _in_working_dir(real: str, ctx: ToolContext) -> bool:
    """True when `real` lies in remecli's working folder (symlinks followed)."""
    root = Path(os.path.realpath(ctx.resolve(ctx.working_dir)))
    path = Path(real)
    return path == root or root in path.parents
