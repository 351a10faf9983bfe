"""`Gate`: every surface's one way to run a job for a caller — scope, paths, access log.

HTTP and MCP pass the caller (`Principal`, from its token; stdio MCP is the local user) and the
JSON arguments; the gate refuses what the token's scope or path glob does not allow (403),
runs the job, narrows a confined token's answer to its glob, and appends who/what/which
paths/outcome to the access log (never contents).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from remecli.ops import JobError, JobRunner
from remecli.ops.errors import Forbidden
from remecli.surfaces.access_log import AccessLog
from remecli.surfaces.job_policy import (
    LINKED,
    check_paths,
    filter_result,
    named_paths,
    paths_of_call,
    paths_of_result,
    reports_failure,
    required_scope,
)
from remecli.surfaces.tokens import Principal


class Gate:
    """Runs jobs on `runner` for callers, checking and logging each call."""

    def __init__(self, runner: JobRunner, log: AccessLog | None = None) -> None:
        self.runner = runner
        self.root = Path(runner.context.root)
        self.log = log if log is not None else AccessLog(self.root)

    async def run(
        self, principal: Principal, name: str, arguments: Mapping[str, object] | None, surface: str
    ) -> dict[str, Any]:
        """Run job `name` for `principal`; its JSON answer, or a JobError (logged either way)."""
        paths = named_paths(arguments)
        try:
            job = self.runner.registry.get(name, served_only=True)
            needed = required_scope(job)
            if not principal.allows(needed):
                raise Forbidden(
                    f"{name} needs a {needed} token; token {principal.name!r} has scope "
                    f"{principal.scope!r} (make one with `remecli token add NAME --scope {needed}`)"
                )
            context = self.runner.context
            if job.name in LINKED and principal.paths is not None:  # reads the link graph
                checked = await asyncio.to_thread(paths_of_call, job, context, arguments)
            else:  # no --paths: a rename's or delete's answer names its notes for the log
                checked = paths_of_call(job, context, arguments, links=False)
            paths = checked or paths
            check_paths(principal, job, checked)
            data = await self.runner.run(name, arguments)
            data = filter_result(principal, job, data)
        except JobError as exc:
            self.log.record(principal.name, surface, name, paths, exc.code)
            raise
        except Exception:
            self.log.record(principal.name, surface, name, paths, "error")
            raise
        outcome = "failed" if reports_failure(data) else "ok"
        self.log.record(
            principal.name, surface, name, [*paths, *paths_of_result(job, data)], outcome
        )
        return data

    def refused(self, principal: Principal | None, surface: str, operation: str, code: str) -> None:
        """Log a call refused before it reached a job (no token, unknown route, …)."""
        self.log.record(principal.name if principal else "-", surface, operation, [], code)
