"""The `read` tool: numbered lines of a text file, a page at a time; images described or shown."""

from __future__ import annotations

import asyncio
import base64
import difflib
from pathlib import Path

from remecli.llm.message import Attachment, ToolOutput
from remecli.llm.tool_results import ToolArgumentError, as_int, as_text, error, ok
from remecli.notes.file_service import FileRead
from remecli.notes.file_service.sniff import UTF16_BOMS, looks_binary
from remecli.tools._files import (
    ImageInfo,
    human_size,
    read_head,
    sniff_image,
)
from remecli.tools.context import ToolContext

MAX_UTF16_BYTES = 16 * 1024 * 1024  # UTF-16 files are decoded whole: refuse bigger ones
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_IMAGE_HEAD_BYTES = 256 * 1024  # JPEG frame headers may sit behind large EXIF blocks


async def read(
    ctx: ToolContext, path: str, offset: int | None = None, limit: int | None = None
) -> ToolOutput:
    """Read a text file as numbered lines (`number<TAB>text`), a page at a time.

    Long files are shown in pages: the result says which lines were shown and which `offset`
    continues. Binary files are refused; images are shown or described.

    Args:
        path: The file to read, relative to the workspace or absolute.
        offset: The 1-based line number to start from.
        limit: The most lines to return.
    """
    settings = ctx.settings
    try:
        target = ctx.resolve(as_text(path, "path"))
        start = 1 if offset is None else max(as_int(offset, "offset", minimum=0), 1)
        count = settings.read_max_lines if limit is None else as_int(limit, "limit", minimum=1)
    except ToolArgumentError as exc:
        return error(str(exc))
    return await asyncio.to_thread(_read, ctx, target, start, count)


def _read(ctx: ToolContext, target: Path, start: int, count: int) -> ToolOutput:
    if not target.exists():
        return error(f"File not found: {target}.{_did_you_mean(target)}")
    if target.is_dir():
        return error(f"{target} is a folder: use `ls` to list it.")
    if not target.is_file():
        return error(f"{target} is not a regular file (a device, socket or pipe); `read` skips it.")
    try:
        size = target.stat().st_size
        head = read_head(target, _IMAGE_HEAD_BYTES)
    except PermissionError:
        return error(f"Permission denied: cannot read {target}.")
    except OSError as exc:
        return error(f"Cannot read {target}: {exc.strerror or exc}.")
    image = sniff_image(head)
    if image is not None:
        return _image_result(ctx, target, size, image)
    if looks_binary(head[:8192]):
        return error(
            f"{target} is a binary file ({human_size(size)}); `read` shows text only. "
            f"Inspect it with `bash` (e.g. `file {target.name}` or `xxd {target.name} | head`)."
        )
    if head.startswith(UTF16_BOMS) and size > MAX_UTF16_BYTES:
        return error(
            f"{target} is a UTF-16 file of {human_size(size)}, too big to read whole. "
            f"Convert it first: `iconv -f UTF-16 -t UTF-8 {target.name} > {target.stem}.utf8.txt`."
        )
    page = ctx.files.read_numbered(target, start, count, ctx.settings.read_max_bytes)
    return _page_result(page, target)


def _page_result(page: FileRead, target: Path) -> ToolOutput:
    """The page as the model reads it: numbered lines, then where it is in the file."""
    start, end, total = page.first_line, page.last_line, page.total_lines
    if total == 0:
        return ok(f"{target} is empty (0 lines).", total_lines=0)
    if page.past_end:
        return error(f"offset {start} is past the end of {target}, which has {total} lines.")
    exact = page.exact_total
    text = page.text
    of_total = f"{total}" if exact else f"at least {total} (the file is too big to count all)"
    if start > 1 or end < total or not exact:
        text += f"\n[Showing lines {start}-{end} of {of_total}."
        text += f" Use offset={end + 1} to continue.]" if end < total else "]"
    if page.replaced:
        text += (
            f"\n[{page.replaced} shown line(s) had bytes that are not UTF-8; they show as \ufffd.]"
        )
    return ok(text, total_lines=total, first_line=start, last_line=end, exact_total=exact)


def _image_result(ctx: ToolContext, target: Path, size: int, image: ImageInfo) -> ToolOutput:
    kind = image.media_type.split("/")[1].upper()
    dims = f", {image.width}x{image.height} pixels" if image.width else ""
    description = f"{target}: {kind} image{dims}, {human_size(size)}."
    if not ctx.accepts_images:
        return ok(
            f"{description} (The current model does not take images, so only this "
            f"description is available.)",
            media_type=image.media_type,
        )
    if size > MAX_IMAGE_BYTES:
        return ok(
            f"{description} (Too large to show: over {human_size(MAX_IMAGE_BYTES)}.)",
            media_type=image.media_type,
        )
    data = base64.b64encode(target.read_bytes()).decode("ascii")
    return ToolOutput(
        description,
        attachments=(Attachment(image.media_type, data, target.name),),
        metadata={"media_type": image.media_type},
    )


def _did_you_mean(target: Path) -> str:
    """A hint naming similar files in the same folder, or how to look."""
    try:
        siblings = [entry.name for entry in target.parent.iterdir()]
    except OSError:
        return " Check the path with `ls`."
    close = difflib.get_close_matches(target.name, siblings, n=3, cutoff=0.6)
    if close:
        return f" Did you mean: {', '.join(close)}?"
    return f" Use `ls {target.parent}` to see what is there."
