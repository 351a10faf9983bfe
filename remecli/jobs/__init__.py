"""The memory jobs every surface (CLI, MCP, HTTP) serves, from one registry.

Importing this package registers the built-in jobs; a job is one `@JOBS.define(...)` function
(add a new module to `JOB_MODULES`).
"""

from __future__ import annotations

import importlib

from remecli.jobs.errors import JobError
from remecli.jobs.registry import JOBS, Job, JobParams, JobRegistry
from remecli.jobs.runner import JobRunner

JOB_MODULES = ("search_jobs", "file_jobs", "record_job", "knowledge_jobs", "resource_job")

for _module in JOB_MODULES:
    importlib.import_module(f"remecli.jobs.{_module}")

__all__ = ["JOBS", "Job", "JobError", "JobParams", "JobRegistry", "JobRunner"]
