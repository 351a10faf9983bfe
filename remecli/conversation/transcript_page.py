"""`sessions/<id>.md`: the readable Markdown page of transcript `sessions/<id>.jsonl`, derived.

Obsidian (and any Markdown viewer) opens it; JSON Lines it does not. Line N of the transcript is
one block with the block id `^L<N>` (`transcript_markdown`), so `[[sessions/<id>.md#^L12]]` opens
the page at line 12 — the link a card carries in `transcript`, next to the machine provenance
`source_conversation: "[[sessions/<id>.jsonl#L12-L40]]"`.

The page is kept in step by `Transcript.append`: the page ends with a comment Obsidian hides,
`%% remecli transcript page v1: <lines> lines, <bytes> bytes %%`; when it matches the size the
transcript had before the write, only the new lines' blocks are appended (the comment replaced).
Anything else — no page yet, an older one, a crash between the two writes, a torn transcript line
— renders the page again from the transcript and replaces it atomically; `remecli reindex`
renders every page again, writing only the pages that differ (an unchanged page keeps its mtime).
The page holds only what the transcript holds (its records are redacted before they are written),
is removed with it (`/clear`), and is not a memory note: search indexes the transcript, not the
page, and the link graph only links to it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from pathlib import Path

from remecli.conversation.transcript_markdown import render_line
from remecli.notes.atomic_write import PRIVATE_FILE_MODE, atomic_write_bytes

log = logging.getLogger(__name__)

SUFFIX = ".md"
_MARK = "%% remecli transcript page v1: {lines} lines, {size} bytes %%\n"
_MARK_TAIL = re.compile(rb"%% remecli transcript page v1: (\d+) lines, (\d+) bytes %%\n\Z")
_MARK_READ = 256


def page_path(transcript: Path) -> Path:
    """`sessions/<id>.md` beside `sessions/<id>.jsonl`."""
    return transcript.with_name(transcript.name.removesuffix(".jsonl") + SUFFIX)


def transcript_lines(data: bytes) -> list[bytes]:
    """The lines of a transcript's bytes as its readers number them (a cut last line counts)."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def render_page(session_id: str, data: bytes) -> str:
    """The whole page of a transcript whose content is `data`."""
    lines = transcript_lines(data)
    body = "".join(render_line(number, raw) for number, raw in enumerate(lines, start=1))
    return _head(session_id) + body + _MARK.format(lines=len(lines), size=len(data))


def _head(session_id: str) -> str:
    return (
        f"# Conversation {session_id}\n\n"
        f"Readable copy of `sessions/{session_id}.jsonl`, one block per line (`^L<line>`), "
        "written by remecli and rebuilt by `remecli reindex`: edits here are not kept.\n\n"
    )


def rebuild(transcript: Path) -> bool:
    """Render the page of `transcript` again (False: no transcript, any page removed)."""
    try:
        data = transcript.read_bytes()
    except FileNotFoundError:
        remove(transcript)
        return False
    session_id = transcript.name.removesuffix(".jsonl")
    _write_if_changed(page_path(transcript), render_page(session_id, data).encode("utf-8"))
    return True


def _write_if_changed(page: Path, content: bytes) -> None:
    """Replace `page` with `content` unless it already holds exactly that: an unchanged page
    keeps its mtime and inode, so a viewer watching it (Studio's live view) does not redraw."""
    try:
        if page.read_bytes() == content:
            return
    except OSError:  # no page yet, or one that cannot be read: write it
        pass
    atomic_write_bytes(page, content, new_mode=PRIVATE_FILE_MODE)


def remove(transcript: Path) -> bool:
    """Delete the page of `transcript`; True when there was one."""
    try:
        page_path(transcript).unlink()
    except FileNotFoundError:
        return False
    return True


def after_append(transcript: Path, size_before: int, payload: bytes) -> None:
    """Bring the page up to date after `payload` was appended at `size_before`: append the new
    lines' blocks when the page matched the transcript before the write, else render it again.
    Never raises: a page that could not be written is rendered again at the next append."""
    try:
        if not _append_blocks(transcript, size_before, payload):
            rebuild(transcript)
    except OSError as exc:  # a full disk, a read-only page: the next append renders it again
        log.warning("%s: its readable page was not updated (%s); rebuilt later", transcript, exc)
    except Exception:  # noqa: BLE001 - the page is derived: it must never fail a transcript write
        log.exception("%s: its readable page was not updated; rebuilt later", transcript)


def _append_blocks(transcript: Path, size_before: int, payload: bytes) -> bool:
    """Append the blocks of `payload`'s lines; False when the page must be rendered again."""
    if not payload.endswith(b"\n") or payload.startswith(b"\n"):
        return False  # a torn line was terminated first: its numbering is re-read from the file
    page = page_path(transcript)
    try:
        fd = os.open(page, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        mark = _read_mark(fd)
        if mark is None or mark[1] != size_before:
            return False
        lines, _size, offset = mark
        new = transcript_lines(payload)
        text = "".join(render_line(lines + k, raw) for k, raw in enumerate(new, start=1))
        text += _MARK.format(lines=lines + len(new), size=size_before + len(payload))
        os.ftruncate(fd, offset)
        _write_at(fd, offset, text.encode("utf-8"))
    finally:
        os.close(fd)
    return True


def _read_mark(fd: int) -> tuple[int, int, int] | None:
    """(lines, transcript bytes, offset of the mark) from the page's last line, or None."""
    size = os.fstat(fd).st_size
    start = max(0, size - _MARK_READ)
    tail = os.pread(fd, size - start, start)
    line_start = tail.rfind(b"\n", 0, len(tail) - 1) + 1
    found = _MARK_TAIL.match(tail, line_start)
    if found is None or (line_start == 0 and start > 0):
        return None
    return int(found.group(1)), int(found.group(2)), start + line_start


def _write_at(fd: int, offset: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def rebuild_all(sessions_dir: Path) -> int:
    """Render the page of every transcript in `sessions_dir` again and remove the pages whose
    transcript is gone; returns how many pages were rendered."""
    if not sessions_dir.is_dir():
        return 0
    rendered = 0
    for transcript in sorted(sessions_dir.glob("*.jsonl")):
        if transcript.is_file() and not transcript.name.startswith("."):
            rendered += rebuild(transcript)
    for page in sessions_dir.glob(f"*{SUFFIX}"):
        source = page.with_name(page.name.removesuffix(SUFFIX) + ".jsonl")
        if not source.exists() and _is_page(page):
            with contextlib.suppress(OSError):
                page.unlink()
    return rendered


def _is_page(path: Path) -> bool:
    """True for a page this module wrote (its last line is the mark)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return _read_mark(fd) is not None
    finally:
        os.close(fd)
