"""Whether a background model job may start: card summaries (also an import's and the pending
ones' retries), Auto Dream, resource cards (`remecli ingest`, the resource watcher). The check is the one every model request passes (a model built by
`remecli.llm.model.build_chat_model` sends nothing without a configured endpoint:
`missing_key_message`, `ModelNotConfigured`); asking it here first means such a job does not
even start, and the user is told once per process what is missing and how to configure it."""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


class ModelGate:
    """`problem()` says why no model can be called (None: one can); `refusal(job)` is what a
    job that does not start shows: the full explanation the first time, "" afterwards."""

    def __init__(self, problem: Callable[[], str | None]) -> None:
        self._problem = problem
        self._said = False

    def problem(self) -> str | None:
        """Why no model call can be made (None: a model is configured)."""
        return self._problem()

    def refusal(self, job: str) -> str | None:
        """None when `job` may start; else the line to show (once per process; "" later)."""
        problem = self.problem()
        if problem is None:
            return None
        log.warning("%s did not start: no model configured", job)
        if self._said:
            return ""
        self._said = True
        return (
            "No model is configured, so memory work that needs one (card summaries, resource "
            "cards, Auto Dream, imports' summaries) does not start and nothing is sent to any "
            f"model. {problem} Messages waiting for a summary stay in sessions/pending/ and files "
            "in resource/ stay there; they become cards at a start (or `remecli ingest`) with a "
            "model configured."
        )
