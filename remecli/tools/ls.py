"""The `ls` tool: the entries of a folder, sorted, folders marked with `/`."""

from __future__ import annotations

import asyncio

from remecli.llm.message import ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_int, as_text, error, ok
from remecli.tools.context import ToolContext


async def ls(ctx: ToolContext, path: str = ".", limit: int | None = None) -> ToolOutput:
    """List the files and folders in a folder, sorted by name; folders end with `/`.

    Args:
        path: The folder to list, relative to the workspace or absolute.
        limit: The most entries to show.
    """
    try:
        folder = ctx.resolve(as_text(path, "path") or ".")
        cap = ctx.settings.ls_limit if limit is None else as_int(limit, "limit", minimum=1)
    except ToolArgumentError as exc:
        return error(str(exc))
    try:
        names = await asyncio.to_thread(ctx.files.list_names, folder)
    except FileNotFoundError:
        return error(f"Folder not found: {folder}. Check the path, or list its parent folder.")
    except NotADirectoryError:
        return error(f"{folder} is a file, not a folder: use `read` to see its content.")
    except PermissionError:
        return error(f"Permission denied: cannot list {folder}.")
    if not names:
        return ok(f"{folder} is empty.", total=0)
    shown = names[:cap]
    text = "\n".join(shown)
    if len(names) > cap:
        text += (
            f"\n[Showing {cap} of {len(names)} entries. List a subfolder, pass a larger `limit`, "
            f"or use `bash` with find/grep to narrow it down.]"
        )
    return ok(f"{folder}:\n{text}", total=len(names), shown=len(shown))
