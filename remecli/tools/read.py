"""The `read` tool: numbered lines of a text file, a page at a time; images described or shown."""

from __future__ import annotations

import asyncio
import base64
import difflib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from remecli.llm.runtime.messages import Base64Source, DataBlock, TextBlock, ToolResultState
from remecli.llm.runtime.tooling import ToolChunk
from remecli.llm.tool_results import ToolArgumentError, as_int, as_text, error, ok
from remecli.tools._files import (
    UTF8_BOM,
    ImageInfo,
    human_size,
    looks_binary,
    read_head,
    sniff_image,
)
from remecli.tools.context import ToolContext

MAX_LINE_CHARS = 2_000
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS + 4  # enough bytes for MAX_LINE_CHARS of any UTF-8 text
COUNT_SCAN_BYTES = 64 * 1024 * 1024  # lines past the page are counted up to this far
MAX_UTF16_BYTES = 16 * 1024 * 1024  # UTF-16 files are decoded whole: refuse bigger ones
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_IMAGE_HEAD_BYTES = 256 * 1024  # JPEG frame headers may sit behind large EXIF blocks


async def read(
    ctx: ToolContext, path: str, offset: int | None = None, limit: int | None = None
) -> ToolChunk:
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


def _read(ctx: ToolContext, target: Path, start: int, count: int) -> ToolChunk:
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
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        if size > MAX_UTF16_BYTES:
            return error(
                f"{target} is a UTF-16 file of {human_size(size)}, too big to read whole. "
                f"Convert it first: `iconv -f UTF-16 -t UTF-8 {target.name} > {target.stem}.utf8.txt`."
            )
        text = target.read_text(encoding="utf-16", errors="replace")
        return _page(
            (line.encode("utf-8") for line in text.splitlines()), target, start, count, ctx
        )
    with target.open("rb") as handle:
        return _page(_raw_lines(handle), target, start, count, ctx, handle.tell, size)


def _raw_lines(handle: BinaryIO) -> Iterator[bytes]:
    """The lines of a file as bytes, without line ends or a leading UTF-8 BOM (streamed).

    Memory stays bounded whatever the file holds: a line longer than `MAX_LINE_BYTES` yields
    its head only (the rest is skipped, it would be cut for display anyway).
    """
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES):
        number += 1
        endless = len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n")
        if endless and not _skip_rest_of_line(handle):
            yield raw  # a line too long to even skip to its end: the rest is left unread
            return
        if number == 1 and raw.startswith(UTF8_BOM):
            raw = raw[len(UTF8_BOM) :]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield raw


def _skip_rest_of_line(handle: BinaryIO) -> bool:
    """Read past the end of the current line; False if it goes on beyond COUNT_SCAN_BYTES."""
    skipped = 0
    while rest := handle.readline(1 << 20):
        if rest.endswith(b"\n"):
            return True
        skipped += len(rest)
        if skipped > COUNT_SCAN_BYTES:
            return False
    return True


def _page(
    lines: Iterable[bytes],
    target: Path,
    start: int,
    count: int,
    ctx: ToolContext,
    position: Callable[[], int] | None = None,
    size: int = 0,
) -> ToolChunk:
    """Number and decode lines start..start+count-1 within the byte budget; count them all."""
    budget = ctx.settings.read_max_bytes
    shown: list[str] = []
    replaced = 0
    total = 0
    full = False
    counted_from: int | None = None  # file offset where the page ended (bounded line count)
    exact = True
    for total, raw in enumerate(lines, 1):
        if full and position is not None:
            offset = position()
            counted_from = offset if counted_from is None else counted_from
            if offset - counted_from > COUNT_SCAN_BYTES:
                exact = False
                break
        if total < start or full:
            continue
        line = raw.decode("utf-8", errors="replace")
        if "\x00" in line:
            line = f"[binary data: line of at least {len(raw)} bytes not shown]"
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" … [line cut at {MAX_LINE_CHARS} characters]"
        rendered = f"{total:>6}\t{line}"
        budget -= len(rendered.encode("utf-8")) + 1
        if budget < 0 and shown:
            full = True
            continue
        replaced += "\ufffd" in line
        shown.append(rendered)
        full = len(shown) >= count
    if total == 0:
        return ok(f"{target} is empty (0 lines).", total_lines=0)
    if start > total:
        return error(f"offset {start} is past the end of {target}, which has {total} lines.")
    if exact and position is not None and position() < size:
        exact = False  # stopped inside an endless line
    end = start + len(shown) - 1
    text = "\n".join(shown)
    of_total = f"{total}" if exact else f"at least {total} (the file is too big to count all)"
    if start > 1 or end < total or not exact:
        text += f"\n[Showing lines {start}-{end} of {of_total}."
        text += f" Use offset={end + 1} to continue.]" if end < total else "]"
    if replaced:
        text += f"\n[{replaced} shown line(s) had bytes that are not UTF-8; they show as \ufffd.]"
    return ok(text, total_lines=total, first_line=start, last_line=end, exact_total=exact)


def _image_result(ctx: ToolContext, target: Path, size: int, image: ImageInfo) -> ToolChunk:
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
    return ToolChunk(
        content=[
            TextBlock(text=description),
            DataBlock(
                source=Base64Source(data=data, media_type=image.media_type), name=target.name
            ),
        ],
        state=ToolResultState.RUNNING,
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
