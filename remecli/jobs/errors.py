"""Errors a memory job raises: one line that says what to do, plus the HTTP status it maps to."""

from __future__ import annotations


class JobError(Exception):
    """A job failed in a way the caller can fix; `status` is the HTTP status it maps to."""

    status = 400
    code = "bad_request"


class InvalidParams(JobError):
    """The parameters do not match the job's schema."""

    code = "invalid_params"


class PathRefused(JobError):
    """The path leaves the working dir or names a file jobs may not touch."""

    status = 403
    code = "path_refused"


class NotFound(JobError):
    """The job or the file does not exist."""

    status = 404
    code = "not_found"


class EditConflict(JobError):
    """The text to replace is not in the file (or not once)."""

    status = 409
    code = "edit_conflict"


class ReadOnlyRefused(JobError):
    """A writing job was called on a read-only surface."""

    status = 403
    code = "read_only"


class TooLarge(JobError):
    """The result is larger than the surface's limit."""

    status = 413
    code = "too_large"


class Unavailable(JobError):
    """The memory runtime cannot serve the job right now (e.g. the index failed to open)."""

    status = 503
    code = "unavailable"
