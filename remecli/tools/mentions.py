"""`@path` mentions in a typed message: the file's content goes to the model with the message.

A mention is `@` followed by a workspace-relative path (trailing punctuation ignored) of an
existing file inside the workspace; anything else (`@alice`, an e-mail address) stays text.
A mention that looks like a file (`@nosuch.txt`, `@src/x`) but names none in the workspace is
not attached, and both the user (`tell`) and the model (a line after the message) are told.
Each file is attached as the `read` tool shows it — numbered lines, one page at most, saying
where it was cut and how to go on — and an image as an image block when the model takes
images (`llm.supports_images`), else as its description.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from remecli.llm.message import Attachment, Text
from remecli.tools.checkpoints.scan import SKIPPED_NAMES
from remecli.tools.context import ToolContext

MENTION = re.compile(r"(?<![\w@/])@([^\s@]+)")
TRAILING = ".,;:!?)]}'\"`"
MAX_MENTIONS = 10
ATTACHED = "\n\n[Attached @"  # where the attachments start in the text the model gets
NOT_ATTACHED = "\n\n[Not attached: @"  # a mentioned file that is not there
FILE_LIKE = re.compile(r"/|\.[A-Za-z0-9]{1,8}$")  # a folder part or an extension

Content: TypeAlias = "str | list[Text | Attachment]"  # a message's parts (remecli.llm.message)


def mentioned_files(text: str, ctx: ToolContext) -> list[str]:
    """The workspace files `text` mentions, as written (first mention first, each once)."""
    return _mentions(text, ctx)[0]


def _mentions(text: str, ctx: ToolContext) -> tuple[list[str], list[str]]:
    """(the workspace files `text` mentions, the file-like mentions that name none)."""
    found: list[str] = []
    missing: list[str] = []
    for match in MENTION.finditer(text):
        name = match.group(1)
        while name and not _is_workspace_file(name, ctx):
            if name[-1] not in TRAILING:
                name = ""
                break
            name = name[:-1]
        if name and name not in found:
            found.append(name)
        if not name:
            written = match.group(1).rstrip(TRAILING)
            if FILE_LIKE.search(written) and written not in missing:
                missing.append(written)
    return found[:MAX_MENTIONS], missing[:MAX_MENTIONS]


def _why_not(name: str, ctx: ToolContext) -> str:
    target = ctx.resolve(name)
    if target.is_dir():
        return "a folder, not a file (mention the files in it)"
    if not ctx.is_inside_workspace(target) or os.path.isabs(name) or name.startswith("~"):
        return f"outside the workspace {ctx.workspace} (only files inside it are attached)"
    return f"no such file in the workspace {ctx.workspace}"


def _is_workspace_file(name: str, ctx: ToolContext) -> bool:
    if os.path.isabs(name) or name.startswith("~"):
        return False
    target = ctx.resolve(name)
    return target.is_file() and ctx.is_inside_workspace(target)


async def with_attachments(
    text: str, ctx: ToolContext, tell: Callable[[str], object] = lambda _: None
) -> Content:
    """`text` with the files it mentions attached (plain `text` when it mentions none); each
    file-like mention that is not there is said to the user (`tell`) and to the model."""
    names, missing = _mentions(text, ctx)
    for name in missing:
        tell(f"@{name}: {_why_not(name, ctx)}; sent as plain text, nothing attached")
    if missing:
        text += "".join(f"{NOT_ATTACHED}{name}: {_why_not(name, ctx)}]" for name in missing)
    if not names:
        return text
    from remecli.tools.read import read

    parts = [text]
    images: list[Attachment] = []
    for name in names:
        shown = await read(ctx, name)
        images += shown.attachments
        parts.append(f"{ATTACHED.lstrip()}{name}, as the `read` tool shows it:]\n" + shown.text)
    joined = "\n\n".join(parts)
    return [Text(joined), *images] if images else joined


def without_attachments(text: str) -> str:
    """A user message as it was typed: the attached files' contents cut off (a replay)."""
    return text.split(ATTACHED, 1)[0].split(NOT_ATTACHED, 1)[0]


@dataclass(frozen=True)
class PathOption:
    """One completion of a partial `@path`: the path, and whether it is a folder."""

    path: str
    folder: bool


def path_options(workspace: Path, partial: str, limit: int = 30) -> list[PathOption]:
    """Workspace entries completing `partial` (folders end in "/"; hidden ones only when asked
    for with a leading dot; .git, node_modules and the like never)."""
    folder_part, _, stem = partial.rpartition("/")
    base = (workspace / folder_part) if folder_part else workspace
    try:
        real_base = Path(os.path.realpath(base))
        root = Path(os.path.realpath(workspace))
        if real_base != root and root not in real_base.parents:
            return []
        entries = sorted(os.scandir(base), key=lambda e: e.name.lower())
    except OSError:
        return []
    options: list[PathOption] = []
    for entry in entries:
        if entry.name in SKIPPED_NAMES or (entry.name.startswith(".") and not stem.startswith(".")):
            continue
        if not entry.name.lower().startswith(stem.lower()):
            continue
        folder = entry.is_dir()
        path = f"{folder_part}/{entry.name}" if folder_part else entry.name
        options.append(PathOption(path + ("/" if folder else ""), folder))
        if len(options) >= limit:
            break
    return options
