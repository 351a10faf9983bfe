"""The memory operations every surface (CLI, MCP, HTTP) serves, from one registry.

Importing this package registers the built-in operations; an operation is one
`@JOBS.define(...)` function (add a new module to `JOB_MODULES`).
"""

from __future__ import annotations

import importlib

from remecli.ops.errors import JobError
from remecli.ops.registry import JOBS, Job, JobParams, JobRegistry, JobResult
from remecli.ops.runner import JobRunner

JOB_MODULES = (
    "search_jobs",
    "file_jobs",
    "record_job",
    "knowledge_jobs",
    "dream_jobs",
    "note_jobs",
    "history_jobs",
    "resource_job",
    "vector_ops",
    "vector_bulk_jobs",
    "health_job",
    "graph_job",
)

for _module in JOB_MODULES:
    importlib.import_module(f"remecli.ops.{_module}")

__all__ = ["JOBS", "Job", "JobError", "JobParams", "JobRegistry", "JobResult", "JobRunner"]
