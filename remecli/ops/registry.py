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

import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict

from remecli.ops.errors import NotFound

if TYPE_CHECKING:
    from remecli.ops.context import JobContext
    from remecli.ops.host import MemoryHost


class JobParams(BaseModel):
    """Base of every operation's parameters: unknown keys are refused (a typo never passes).

    A lower layer's own request model may be a job's params as it is (`memory_search` takes
    `search.SearchRequest`) when it refuses unknown keys too (`add` checks)."""

    model_config = ConfigDict(extra="forbid")


class NoParams(JobParams):
    """An operation without parameters."""


class JobResult(BaseModel):
    """Base of every operation's result: exactly the declared fields, dumped as the JSON answer
    (a field with an alias, e.g. `in_` for "in", is written under its alias)."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)


P = TypeVar("P", bound=BaseModel)
R = TypeVar("R", bound=JobResult)
Handler = Callable[["JobContext", Any], Awaitable[JobResult]]
TypedHandler = Callable[["JobContext", P], Awaitable[R]]


@dataclass(frozen=True)
class Job:
    """One memory operation, as every surface sees it."""

    name: str
    description: str
    params: type[BaseModel]
    result: type[JobResult]
    read_only: bool
    handler: Handler
    needs: Callable[[MemoryHost], bool] | None = None  # e.g. vector memory turned on

    def usable(self, memory: MemoryHost) -> bool:
        """True when the job can work on `memory` (a surface lists only those: an MCP client
        pays tokens for every tool it is shown); one that cannot still says how to turn it on."""
        return self.needs is None or self.needs(memory)

    def input_schema(self) -> dict[str, Any]:
        """JSON schema of the parameters (what MCP lists and OpenAPI documents)."""
        return self.params.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        """JSON schema of the result (what `run` returns, serialized)."""
        return self.result.model_json_schema(mode="serialization")


BUILTIN_JOB_MODULES = (  # a new operation module goes here
    "remecli.ops.search_jobs",
    "remecli.ops.read_job",
    "remecli.ops.file_jobs",
    "remecli.ops.record_job",
    "remecli.ops.knowledge_jobs",
    "remecli.ops.dream_jobs",
    "remecli.ops.note_jobs",
    "remecli.ops.history_jobs",
    "remecli.ops.resource_job",
    "remecli.ops.vector_ops",
    "remecli.ops.vector_bulk_jobs",
    "remecli.ops.health_job",
    "remecli.ops.graph_job",
    "remecli.ops.claims_job",
    "remecli.ops.sync_jobs",
)


class JobRegistry:
    """Operations by name, in definition order (module by module, in the order of `modules`).

    The `modules` that define the operations are imported at the first lookup, not when the
    package loads: the agent's memory tools import the two or three operations they call, and
    an answer (`-p`) does not pay for dream, history and the vector bulk jobs it never runs."""

    def __init__(self, modules: Sequence[str] = ()) -> None:
        self._jobs: dict[str, Job] = {}
        self._modules = tuple(modules)
        self._loaded = not self._modules

    def _all(self) -> dict[str, Job]:
        """Every operation, its defining modules imported first; ordered by module, then by
        definition (the same order whichever module an adapter happened to import first)."""
        if not self._loaded:
            for module in self._modules:
                importlib.import_module(module)
            self._loaded = True
            rank = {module: n for n, module in enumerate(self._modules)}
            ordered = sorted(
                self._jobs.values(),
                key=lambda job: rank.get(job.handler.__module__, len(rank)),
            )
            self._jobs = {job.name: job for job in ordered}
        return self._jobs

    def add(self, job: Job) -> Job:
        """Register `job`; a second operation with the same name is a programming error."""
        if job.name in self._jobs:
            raise ValueError(f"job {job.name!r} is defined twice")
        if job.params.model_config.get("extra") != "forbid":
            raise TypeError(f"job {job.name!r}: its params must refuse unknown keys")
        self._jobs[job.name] = job
        return job

    def define(
        self,
        name: str,
        *,
        params: type[P],
        result: type[R],
        read_only: bool,
        needs: Callable[[MemoryHost], bool] | None = None,
    ) -> Callable[[TypedHandler[P, R]], TypedHandler[P, R]]:
        """Decorator: register the handler as operation `name`; its docstring is the description.
        `needs`: what the memory must have turned on for the job to work (see `Job.usable`).

        The handler is returned unchanged, so in-process callers keep its typed signature.
        """

        def register(handler: TypedHandler[P, R]) -> TypedHandler[P, R]:
            description = inspect.cleandoc(handler.__doc__ or "").strip()
            if not description:
                raise ValueError(f"job {name!r} needs a docstring (its description)")
            self.add(Job(name, description, params, result, read_only, handler, needs))
            return handler

        return register

    def get(self, name: str) -> Job:
        """The operation called `name`, or NotFound listing the known ones."""
        jobs = self._all()
        try:
            return jobs[name]
        except KeyError:
            raise NotFound(f"no job {name!r}; known jobs: {', '.join(jobs)}") from None

    def of(self, handler: Callable[..., Any]) -> Job:
        """The registered operation whose handler is `handler` (a programming error if none)."""
        for job in self._all().values():
            if job.handler is handler:
                return job
        raise ValueError(f"{getattr(handler, '__name__', handler)!r} is not a registered job")

    def names(self) -> list[str]:
        """Operation names in definition order."""
        return list(self._all())

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._all().values()))

    def __len__(self) -> int:
        return len(self._all())


JOBS = JobRegistry(BUILTIN_JOB_MODULES)
