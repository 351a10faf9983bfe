"""The memory operations every surface (CLI, MCP, HTTP) serves, from one registry.

An operation is one `@JOBS.define(...)` function; its module is listed in
`registry.BUILTIN_JOB_MODULES`, which the registry imports at its first lookup (so importing
one operation, as the agent's memory tools do, does not load all of them).
"""

from __future__ import annotations

from remecli.ops.errors import JobError
from remecli.ops.registry import JOBS, Job, JobParams, JobRegistry, JobResult
from remecli.ops.runner import JobRunner

__all__ = ["JOBS", "Job", "JobError", "JobParams", "JobRegistry", "JobResult", "JobRunner"]
