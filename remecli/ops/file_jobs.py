"""Jobs on the memory files themselves: memory_list, memory_edit, memory_write (memory_read:
`read_job`).

memory_edit and memory_write take an optional `expected_sha256`: the change is made only if the
file still is that version, checked while the file is locked (no write can land between the
check and the write), so an editor never overwrites a change it has not seen.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from remecli.notes.matching import EditRefused, apply_edit
from remecli.notes.writer import ChangedMeanwhile, MemoryWriteError, ShrinkRefused
from remecli.ops import listing
from remecli.ops.context import JobContext
from remecli.ops.errors import ChangedOnDisk, EditConflict, InvalidParams, NotFound, PathRefused
from remecli.ops.read_job import check_file, sha256_hex
from remecli.ops.registry import JOBS, JobParams, JobResult

LIST_MAX_ENTRIES = 1_000
ABSENT = "absent"
EXPECTED_SHA256 = Field(
    None,
    pattern=r"^([0-9a-f]{64}|absent)$",
    description="Change the file only if its content now has this SHA-256 (hex; 'absent': only "
    "if the file does not exist yet); else refused with code changed_on_disk",
)


class ListParams(JobParams["ListResult"]):
    folder: str = Field("", description="Folder relative to the working dir ('' = the root)")
    recursive: bool = Field(False, description="Also list everything below the folder")


class EditParams(JobParams):
    path: str = Field(description="Markdown file relative to the working dir, e.g. MEMORY.md")
    old: str = Field(
        min_length=1,
        description="Text to replace, copied from the file; must occur once (exact, else "
        "ignoring whitespace and quote style)",
    )
    new: str = Field(description="Replacement text ('' deletes `old`)")
    expected_sha256: str | None = EXPECTED_SHA256


class ListEntry(JobResult):
    path: str = Field(description="Relative path; a folder's ends with '/'")
    type: Literal["file", "folder"]
    size: int | None = Field(default=None, description="Bytes (files only)")
    modified: str = Field(description="Last change, ISO 8601")

    @model_serializer(mode="wrap")
    def _drop_folder_size(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.size is None:
            data.pop("size", None)
        return data


class ListResult(JobResult):
    folder: str
    entries: list[ListEntry]
    truncated: bool


class EditResult(JobResult):
    path: str
    replaced: int
    line: int = Field(description="1-based line where the replaced text started")
    sha256: str = Field(description="SHA-256 of the file now (pass as expected_sha256 next time)")


class WriteParams(JobParams["FileWriteResult"]):
    path: str = Field(
        description="Markdown memory file relative to the working dir, e.g. MEMORY.md"
    )
    content: str = Field(max_length=1_000_000, description="The complete new content of the file")
    allow_shrink: bool = Field(
        False,
        description="Allow dropping lines the file holds now (default: refused; use memory_edit "
        "to change part of a file)",
    )
    expected_sha256: str | None = EXPECTED_SHA256


class FileWriteResult(JobResult):
    path: str
    created: bool
    changed: bool
    bytes: int
    version: int | None = Field(description="The version kept of the new content (None: off)")
    redacted: list[str] = Field(description="Kinds of secrets replaced before writing")
    sha256: str = Field(description="SHA-256 of the file now (pass as expected_sha256 next time)")


def _modified(mtime: float) -> str:
    stamp = dt.datetime.fromtimestamp(mtime).astimezone()
    return stamp.isoformat(timespec="seconds")


def _read_text(path: Path, relative: str) -> str:
    check_file(path, relative)
    try:
        with open(path, encoding="utf-8", newline="") as handle:  # CRLF kept as it is on disk
            return handle.read()
    except UnicodeDecodeError:
        raise InvalidParams(f"{relative!r} is not a UTF-8 text file") from None


def _list(root: Path, folder: Path, relative: str, recursive: bool) -> ListResult:
    if not folder.is_dir():
        if folder.exists():
            raise InvalidParams(f"{relative!r} is a file; use memory_read to read it")
        raise NotFound(f"no folder {relative!r}; call memory_list with folder='' to start")
    entries: list[ListEntry] = []
    truncated = False
    for found in listing.entries(root, folder, recursive):  # walked only as far as listed
        if len(entries) == LIST_MAX_ENTRIES:
            truncated = True
            break
        modified = _modified(found.mtime)
        if found.folder:
            entries.append(ListEntry(path=found.relative, type="folder", modified=modified))
        else:
            entries.append(
                ListEntry(path=found.relative, type="file", size=found.size, modified=modified)
            )
    entries.sort(key=lambda e: e.path)
    return ListResult(folder=relative, entries=entries, truncated=truncated)


@JOBS.define("memory_list", params=ListParams, result=ListResult, read_only=True)
async def memory_list(ctx: JobContext, params: ListParams) -> ListResult:
    """List the files and folders of the working dir (or a folder in it), with sizes and times."""
    target = ctx.confine(params.folder, allow_root=True)
    root = ctx.root.resolve()
    return await asyncio.to_thread(_list, root, target.path, target.relative, params.recursive)


def _refusal_message(refused: EditRefused, relative: str) -> str:
    if refused.reason == "ambiguous":
        return (
            f"the text to replace occurs {len(refused.lines)} times in {relative!r}; include "
            "more surrounding lines in `old` so it occurs once"
        )
    if refused.reason == "unchanged":
        return f"`new` is the same as the text it replaces in {relative!r}: nothing to change"
    return (
        f"the text to replace is not in {relative!r}, not even ignoring whitespace and quote "
        "style; read it again (memory_read) and copy `old` from it"
    )


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def current_sha256(path: Path) -> str | None:
    """The SHA-256 of the file now (None: it does not exist)."""
    data = _read_or_none(path)
    return None if data is None else sha256_hex(data)


def check_expected(path: Path, relative: str, expected_sha256: str | None) -> bytes | None:
    """The file's bytes now (None: absent); ChangedOnDisk when they are not the version
    `expected_sha256` names. Call it holding the file's lock."""
    current = _read_or_none(path)
    if expected_sha256 is None:
        return current
    if current is None:
        if expected_sha256 != ABSENT:
            raise ChangedOnDisk(
                f"{relative!r} was deleted since you read it; write it without "
                "expected_sha256 to create it anew",
                None,
            )
        return None
    now = sha256_hex(current)
    if expected_sha256 == ABSENT:
        raise ChangedOnDisk(f"{relative!r} already exists; read it and change it instead", now)
    if now != expected_sha256:
        raise ChangedOnDisk(
            f"{relative!r} changed since you read it (someone else wrote it); read it again, "
            "or pass its new expected_sha256 to overwrite",
            now,
        )
    return current


def _edit(ctx: JobContext, target: Path, relative: str, params: EditParams) -> EditResult:
    old, new = params.old, params.new
    with ctx.locks.hold(target):  # read-modify-write under the file's lock: no lost update
        check_expected(target, relative, params.expected_sha256)
        content = _read_text(target, relative)
        try:
            done = apply_edit(content, old, new)
        except EditRefused as refused:
            raise EditConflict(_refusal_message(refused, relative)) from None
        updated = done.content
        try:  # versioned and redacted, like the app's own edits
            ctx.files.write(
                target, updated, source="memory_edit", allow_shrink=True, expected=content
            )
        except ChangedMeanwhile as exc:
            if params.expected_sha256 is None:
                raise EditConflict(str(exc)) from None
            raise ChangedOnDisk(str(exc), current_sha256(target)) from None
        except MemoryWriteError as exc:
            raise EditConflict(str(exc)) from None
        now = _read_or_none(target) or b""
    return EditResult(path=relative, replaced=1, line=done.line, sha256=sha256_hex(now))


@JOBS.define("memory_edit", params=EditParams, result=EditResult, read_only=False)
async def memory_edit(ctx: JobContext, params: EditParams) -> EditResult:
    """Replace one piece of text in a Markdown memory file (`old` must occur once).

    `old` is matched exactly, else ignoring whitespace and quote style (as the agent's `edit`).

    The file is locked while it is read, changed and atomically replaced, so concurrent edits
    of one file never lose an update.
    """
    path, relative = _memory_target(ctx, params.path, "edited")
    return await asyncio.to_thread(_edit, ctx, path, relative, params)


def _memory_target(ctx: JobContext, raw: str, verb: str) -> tuple[Path, str]:
    """The note `raw` names: a Markdown memory note by the file service's one rule (MEMORY.md,
    *.md under memory/ or digest/), the same notes memory_rename and memory_delete accept."""
    target = ctx.confine(raw)
    if raw.strip().endswith("/") or ctx.files.memory_note(target.path) is None:
        raise PathRefused(
            f"{raw.strip()!r} cannot be {verb}; only Markdown notes can: MEMORY.md, or a file "
            "ending in .md under memory/ or digest/ (e.g. memory/ideas.md)"
        )
    return target.path, target.relative


@JOBS.define("memory_write", params=WriteParams, result=FileWriteResult, read_only=False)
async def memory_write(ctx: JobContext, params: WriteParams) -> FileWriteResult:
    """Create a Markdown memory file or replace its whole content (versioned, secrets redacted).

    Replacing a file is refused when lines it holds would be dropped, unless `allow_shrink`;
    to change part of a file use memory_edit. With `expected_sha256` (the `sha256` a previous
    write returned, or 'absent' for a new file) a file someone else changed meanwhile is kept
    and the write refused (code changed_on_disk).
    """
    path, relative = _memory_target(ctx, params.path, "written")
    if path.is_dir():
        raise InvalidParams(f"{relative!r} is a folder; pass a file path")

    def write() -> FileWriteResult:
        with ctx.locks.hold(path):
            if params.expected_sha256 is None:
                result = ctx.files.write(
                    path, params.content, source="memory_write", allow_shrink=params.allow_shrink
                )
            else:  # checked here, and again by the writer under its own lock (`expected`)
                seen = check_expected(path, relative, params.expected_sha256)
                result = ctx.files.write(
                    path,
                    params.content,
                    source="memory_write",
                    allow_shrink=params.allow_shrink,
                    expected=seen,
                )
            now = _read_or_none(path) or b""
        return FileWriteResult(
            path=relative,
            created=result.created,
            changed=result.changed,
            bytes=result.bytes,
            version=result.version,
            redacted=list(result.redactions),
            sha256=sha256_hex(now),
        )

    try:
        return await asyncio.to_thread(write)
    except ChangedMeanwhile as exc:  # a writer that skipped the job lock got in: nothing lost
        if params.expected_sha256 is None:
            raise EditConflict(str(exc)) from None
        raise ChangedOnDisk(str(exc), current_sha256(path)) from None
    except ShrinkRefused as exc:  # it would drop lines: say so, keep the file
        raise EditConflict(f"{exc} Here: memory_edit, or allow_shrink=true if meant.") from None
    except MemoryWriteError as exc:
        raise EditConflict(str(exc)) from None
