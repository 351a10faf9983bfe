"""Errors a memory job raises: one line that says what to do, plus the HTTP status it maps to."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class JobError(Exception):
    """A job failed in a way the caller can fix; `status` is the HTTP status it maps to and
    `code` the stable name surfaces report. A subclass names both in its header:
    `class NotFound(JobError, status=404, code="not_found")` (a missing one is inherited)."""

    status = 400
    code = "bad_request"

    def __init_subclass__(cls, status: int | None = None, code: str | None = None) -> None:
        super().__init_subclass__()
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code

    def body(self) -> dict[str, object]:
        """The error as every surface answers it: `{"error": <what to do>, "code": …}` (plus
        what a subclass adds for the caller to act on)."""
        return {"error": str(self), "code": self.code}


class InvalidParams(JobError, code="invalid_params"):
    """The parameters do not match the job's schema."""


class PathRefused(JobError, status=403, code="path_refused"):
    """The path leaves the working dir or names a file jobs may not touch."""


class NotFound(JobError, status=404, code="not_found"):
    """The job or the file does not exist."""


class EditConflict(JobError, status=409, code="edit_conflict"):
    """The text to replace is not in the file (or not once)."""


class ChangedOnDisk(JobError, status=409, code="changed_on_disk"):
    """The file is not the version the caller based its change on (`expected_sha256`)."""

    def __init__(self, message: str, current_sha256: str | None) -> None:
        super().__init__(message)
        self.current_sha256 = current_sha256

    def body(self) -> dict[str, object]:
        """With the file's current SHA-256 (None: it is gone), to read again or pass on."""
        return {**super().body(), "current_sha256": self.current_sha256}


class ReadOnlyRefused(JobError, status=403, code="read_only"):
    """A writing job was called on a read-only surface."""


class TooLarge(JobError, status=413, code="too_large"):
    """The result is larger than the surface's limit."""


class Unavailable(JobError, status=503, code="unavailable"):
    """The memory runtime cannot serve the job right now (e.g. the index failed to open)."""


class NoteExists(JobError, status=409, code="note_exists"):
    """A rename's new name is taken (by another note, or it is the note's own)."""


class RenameFailed(JobError, status=500, code="rename_failed"):
    """A rename failed midway and could not be fully undone; the message names the files."""


class Forbidden(JobError, status=403, code="forbidden"):
    """The caller's token does not allow this operation or path (`remecli token add --scope`)."""


def describe_validation(job: str, exc: ValidationError) -> str:
    """A one-line account of what is wrong with the parameters."""
    problems = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error["loc"]) or "parameters"
        problems.append(f"{where}: {error['msg']}")
    return f"{job}: " + "; ".join(problems) + " (see the job's schema)"
