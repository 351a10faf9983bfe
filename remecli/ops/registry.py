"""The one registry of memory jobs: name, description, typed parameters, read-only flag, handler.

The CLI (`remecli job NAME`), the MCP tools and the HTTP routes are all built from it; adding a
job is one decorated function:

    @JOBS.define("memory_thing", params=ThingParams, read_only=True)
    async def memory_thing(ctx: JobContext, params: ThingParams) -> dict[str, Any]:
        \"\"\"What it does (this docstring is the description every surface shows).\"\"\"
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from remecli.ops.errors import NotFound

if TYPE_CHECKING:
    from remecli.ops.context import JobContext

Handler = Callable[["JobContext", Any], Awaitable[dict[str, Any]]]


class JobParams(BaseModel):
    """Base of every job's parameters: unknown keys are refused (a typo never passes silently)."""

    model_config = ConfigDict(extra="forbid")


class NoParams(JobParams):
    """A job without parameters."""


@dataclass(frozen=True)
class Job:
    """One memory job, as every surface sees it."""

    name: str
    description: str
    params: type[JobParams]
    read_only: bool
    handler: Handler

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the parameters (what MCP lists and OpenAPI documents)."""
        return self.params.model_json_schema()


class JobRegistry:
    """Jobs by name, in definition order."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}

    def add(self, job: Job) -> Job:
        """Register `job`; a second job with the same name is a programming error."""
        if job.name in self._jobs:
            raise ValueError(f"job {job.name!r} is defined twice")
        self._jobs[job.name] = job
        return job

    def define(
        self, name: str, *, params: type[JobParams] = NoParams, read_only: bool
    ) -> Callable[[Handler], Handler]:
        """Decorator: register the handler as job `name`; its docstring is the description."""

        def register(handler: Handler) -> Handler:
            description = inspect.cleandoc(handler.__doc__ or "").strip()
            if not description:
                raise ValueError(f"job {name!r} needs a docstring (its description)")
            self.add(Job(name, description, params, read_only, handler))
            return handler

        return register

    def get(self, name: str) -> Job:
        """The job called `name`, or NotFound listing the known ones."""
        try:
            return self._jobs[name]
        except KeyError:
            raise NotFound(f"no job {name!r}; known jobs: {', '.join(self._jobs)}") from None

    def names(self) -> list[str]:
        """Job names in definition order."""
        return list(self._jobs)

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._jobs.values()))

    def __len__(self) -> int:
        return len(self._jobs)


JOBS = JobRegistry()
