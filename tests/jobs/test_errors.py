"""Each job error keeps the HTTP status and code the surfaces report for it."""

from __future__ import annotations

import pytest

from remecli.ops import errors


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (errors.JobError, 400, "bad_request"),
        (errors.InvalidParams, 400, "invalid_params"),
        (errors.PathRefused, 403, "path_refused"),
        (errors.NotFound, 404, "not_found"),
        (errors.EditConflict, 409, "edit_conflict"),
        (errors.ReadOnlyRefused, 403, "read_only"),
        (errors.TooLarge, 413, "too_large"),
        (errors.Unavailable, 503, "unavailable"),
    ],
)
def test_an_error_maps_to_its_status_and_code(
    error: type[errors.JobError], status: int, code: str
) -> None:
    raised = error("say what to do")
    assert isinstance(raised, errors.JobError) and str(raised) == "say what to do"
    assert (raised.status, raised.code) == (status, code)


def test_a_subclass_without_a_status_inherits_its_parents() -> None:
    class Narrower(errors.NotFound, code="narrower"):
        """A finer kind of not found."""

    assert (Narrower.status, Narrower.code) == (404, "narrower")
    assert (errors.NotFound.status, errors.NotFound.code) == (404, "not_found")
