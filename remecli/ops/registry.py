"""The one registry of memory operations: name, description, typed params and result, handler.

The CLI (`remecli job NAME`), the MCP tools, the HTTP routes and the agent's memory tools are
all built from it; adding an operation is one decorated function:

    @JOBS.define("memory_thing", params=ThingParams, result=ThingResult, read_only=True)
    async def memory_thing(ctx: JobContext, params: ThingParams) -> ThingResult:
        \"\"\"What it does (this docstring is the description every surface shows).\"\"\"

Surfaces call `JobRunner.run(name, arguments) -> dict` (JSON); the core's own adapters call
`JobRunner.call(memory_thing, ThingParams(...)) -> ThingResult` (typed).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict

from remecli.ops.errors import NotFound

if TYPE_CHECKING:
    from remecli.ops.context import JobContext


class JobParams(BaseModel):
    """Base of every operation's parameters: unknown keys are refused (a typo never passes)."""

    model_config = ConfigDict(extra="forbid")


class NoParams(JobParams):
    """An operation without parameters."""


class JobResult(BaseModel):
    """Base of every operation's result: exactly the declared fields, dumped as the JSON answer
    (a field with an alias, e.g. `in_` for "in", is written under its alias)."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)


P = TypeVar("P", bound=JobParams)
R = TypeVar("R", bound=JobResult)
Handler = Callable[["JobContext", Any], Awaitable[JobResult]]
TypedHandler = Callable[["JobContext", P], Awaitable[R]]


@dataclass(frozen=True)
class Job:
    """One memory operation, as every surface sees it."""

    name: str
    description: str
    params: type[JobParams]
    result: type[JobResult]
    read_only: bool
    handler: Handler

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the parameters (what MCP lists and OpenAPI documents)."""
        return self.params.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        """JSON schema of the result (what `run` returns, serialized)."""
        return self.result.model_json_schema(mode="serialization")


class JobRegistry:
    """Operations by name, in definition order."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}

    def add(self, job: Job) -> Job:
        """Register `job`; a second operation with the same name is a programming error."""
        if job.name in self._jobs:
            raise ValueError(f"job {job.name!r} is defined twice")
        self._jobs[job.name] = job
        return job

    def define(
        self, name: str, *, params: type[P], result: type[R], read_only: bool
    ) -> Callable[[TypedHandler[P, R]], TypedHandler[P, R]]:
        """Decorator: register the handler as operation `name`; its docstring is the description.

        The handler is returned unchanged, so in-process callers keep its typed signature.
        """

        def register(handler: TypedHandler[P, R]) -> TypedHandler[P, R]:
            description = inspect.cleandoc(handler.__doc__ or "").strip()
            if not description:
                raise ValueError(f"job {name!r} needs a docstring (its description)")
            self.add(Job(name, description, params, result, read_only, handler))
            return handler

        return register

    def get(self, name: str) -> Job:
        """The operation called `name`, or NotFound listing the known ones."""
        try:
            return self._jobs[name]
        except KeyError:
            raise NotFound(f"no job {name!r}; known jobs: {', '.join(self._jobs)}") from None

    def of(self, handler: Callable[..., Any]) -> Job:
        """The registered operation whose handler is `handler` (a programming error if none)."""
        for job in self._jobs.values():
            if job.handler is handler:
                return job
        raise ValueError(f"{getattr(handler, '__name__', handler)!r} is not a registered job")

    def names(self) -> list[str]:
        """Operation names in definition order."""
        return list(self._jobs)

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._jobs.values()))

    def __len__(self) -> int:
        return len(self._jobs)


JOBS = JobRegistry()
