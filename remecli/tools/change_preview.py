"""What a `write` or `edit` call would do to its file, as a unified diff, before it runs (the
approval question shows it). Computed with the tools' own edit semantics, so the preview is
the change the call makes, with the file's surrounding lines and line numbers."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from remecli.notes.matching import EditRefused, apply_edit
from remecli.tools.context import ToolContext

MAX_PREVIEW_BYTES = 2_000_000
MAX_PREVIEW_LINES = 200


def change_preview(tool_name: str, arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    """The diff `write`/`edit` with `arguments` would make; "" for other tools or bad input."""
    path = arguments.get("path")
    if tool_name not in ("write", "edit") or not isinstance(path, str) or not path:
        return ""
    target = ctx.resolve(path)
    try:
        exists = target.is_file()
        if exists and target.stat().st_size > MAX_PREVIEW_BYTES:
            return f"{path}: too large to preview ({target.stat().st_size:,} bytes)"
        current = target.read_text("utf-8", errors="replace") if exists else None
    except OSError as exc:
        return f"{path}: cannot be read for a preview ({exc.strerror or exc})"
    if tool_name == "write":
        content = arguments.get("content")
        if not isinstance(content, str):
            return ""
        if current is None:
            count = len(content.splitlines())
            return f"new file {path} ({count} line{'' if count == 1 else 's'})\n" + _diff(
                path, None, content
            )
        return f"overwrite {path}\n" + _diff(path, current, content)
    old, new = arguments.get("old_text"), arguments.get("new_text")
    if not isinstance(old, str) or not isinstance(new, str) or not old:
        return ""
    if current is None:
        return f"{path} does not exist: this edit will fail."
    crlf = "\r\n" in current and current.count("\n") == current.count("\r\n")
    text = current.replace("\r\n", "\n") if crlf else current
    try:
        done = apply_edit(text, old.replace("\r\n", "\n") if crlf else old, new)
    except EditRefused as refused:
        return f"edit {path}: this edit will be refused ({refused.reason.replace('_', ' ')})."
    return f"edit {path} at line {done.line}\n" + _diff(path, text, done.content)


def _diff(path: str, before: str | None, after: str) -> str:
    lines = list(
        difflib.unified_diff(
            (before or "").splitlines(),
            after.splitlines(),
            "/dev/null" if before is None else _label("a", path),
            _label("b", path),
            lineterm="",
        )
    )
    if not lines:
        return f"{path}: no change"
    if len(lines) > MAX_PREVIEW_LINES:
        cut = len(lines) - MAX_PREVIEW_LINES
        lines = lines[:MAX_PREVIEW_LINES] + [f"… [{cut} more diff lines not shown]"]
    return "\n".join(lines)


def _label(side: str, path: str) -> str:
    """`a/notes.txt` for a workspace path (as git writes it); an absolute path as it is."""
    return path if path.startswith(("/", "~")) else f"{side}/{path}"
