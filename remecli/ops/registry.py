"""The one registry of memory operations: name, description, typed params and result, handler.

The CLI (`remecli job NAME`), the MCP tools, the HTTP routes and the agent's memory tools are
all built from it; adding an operation is one decorated function:

    @JOBS.define("memory_thing", params=ThingParams, result=ThingResult, read_only=True)
    async def memory_thing(ctx: JobContext, params: ThingParams) -> ThingResult:
        \"\"\"What it does (this docstring is the description every surface shows).\"\"\"

A params class names its result (`class ThingParams(JobParams[ThingResult])`) and belongs to one
job, so surfaces call `JobRunner.call(ThingParams(...)) -> ThingResult` (typed, the job found
from the params); a client's JSON goes through `JobRunner.run(name, arguments) -> dict`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from typing_extensions import TypeVar

from remecli.ops.errors import InvalidParams, NotFound, describe_validation

if TYPE_CHECKING:
    from remecli.ops.context import JobContext
    from remecli.ops.host import MemoryHost


class JobResult(BaseModel):
    """Base of every operation's result: exactly the declared fields, dumped as the JSON answer
    (a field with an alias, e.g. `in_` for "in", is written under its alias)."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True)


ResultT = TypeVar("ResultT", bound=JobResult, default=JobResult, covariant=True)


class JobParams(BaseModel, Generic[ResultT]):
    """Base of every operation's parameters: unknown keys are refused (a typo never passes).
    `JobParams[ThingResult]` names the result, so `JobRunner.call(params)` is typed.

    A lower layer's own request model may be a job's params as it is (`memory_search` takes
    `search.SearchRequest`) when it refuses unknown keys too (`add` checks)."""

    model_config = ConfigDict(extra="forbid")

    @classmethod
    def parse(cls, **fields: object) -> Self:
        """These params from a client's values (a query string, a JSON body): what is wrong is
        an InvalidParams (400) naming the job, as `JobRunner.run` says it."""
        return parse_params(cls, **fields)


M = TypeVar("M", bound=BaseModel)


def parse_params(model: type[M], **fields: object) -> M:
    """`model` (a job's params; also a lower layer's request, as `search.SearchRequest`) from a
    client's values: what is wrong is an InvalidParams (400) naming the job."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        try:
            name = JOBS.for_params(model).name
        except ValueError:
            name = model.__name__
        raise InvalidParams(describe_validation(name, exc)) from None


class NoParams(JobParams):
    """An operation without parameters."""


def declared_result(params: type[BaseModel]) -> str | None:
    """The name of the result a params class names (`JobParams["ThingResult"]`, a forward
    reference where the result is defined below it), None when it names none."""
    for base in params.__mro__:
        meta = getattr(base, "__pydantic_generic_metadata__", None) or {}
        if meta.get("origin") is JobParams and meta.get("args"):
            named = meta["args"][0]
            if isinstance(named, str):
                return named
            return str(getattr(named, "__forward_arg__", None) or named.__name__)
    return None


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
    served: bool = True  # False: a read model for Studio and the CLI, not on MCP/HTTP

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
    "remecli.ops.resource_place_job",  # remecli ingest around memory_ingest (served=False)
    "remecli.ops.vector_ops",
    "remecli.ops.vector_bulk_jobs",
    "remecli.ops.health_job",
    "remecli.ops.graph_job",
    "remecli.ops.claims_job",
    "remecli.ops.sync_jobs",
    "remecli.ops.view_jobs",  # read models of Studio and the CLI (served=False)
    "remecli.ops.session_job",
    "remecli.ops.session_list_job",
)


class JobRegistry:
    """Operations by name, in definition order (module by module, in the order of `modules`).

    The `modules` that define the operations are imported at the first lookup, not when the
    package loads: the agent's memory tools import the two or three operations they call, and
    an answer (`-p`) does not pay for dream, history and the vector bulk jobs it never runs."""

    def __init__(self, modules: Sequence[str] = ()) -> None:
        self._jobs: dict[str, Job] = {}
        self._by_params: dict[type[BaseModel], Job | None] = {}  # None: shared by several jobs
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
        declared = declared_result(job.params)
        if declared is not None and declared != job.result.__name__:
            raise ValueError(
                f"job {job.name!r}: {job.params.__name__} names {declared} as its result, "
                f"the job returns {job.result.__name__}"
            )
        if declared is not None and job.params in self._by_params:
            raise ValueError(
                f"job {job.name!r}: {job.params.__name__} names its result, so it belongs to "
                "one job; give this job params of its own"
            )
        self._jobs[job.name] = job
        self._by_params[job.params] = None if job.params in self._by_params else job
        return job

    def define(
        self,
        name: str,
        *,
        params: type[P],
        result: type[R],
        read_only: bool,
        needs: Callable[[MemoryHost], bool] | None = None,
        served: bool = True,
    ) -> Callable[[TypedHandler[P, R]], TypedHandler[P, R]]:
        """Decorator: register the handler as operation `name`; its docstring is the description.
        `needs`: what the memory must have turned on for the job to work (see `Job.usable`).
        `served=False`: a read model Studio or the CLI shows (a page, a listing), run in-process
        with `JobRunner.call`; MCP and HTTP leave it out (a client pays for every tool listed).

        The handler is returned unchanged, so in-process callers keep its typed signature.
        """

        def register(handler: TypedHandler[P, R]) -> TypedHandler[P, R]:
            description = inspect.cleandoc(handler.__doc__ or "").strip()
            if not description:
                raise ValueError(f"job {name!r} needs a docstring (its description)")
            self.add(Job(name, description, params, result, read_only, handler, needs, served))
            return handler

        return register

    def get(self, name: str, *, served_only: bool = False) -> Job:
        """The operation called `name`, or NotFound listing the known ones (`served_only`: a
        client's call, which never reaches a read model kept for Studio and the CLI)."""
        jobs = {job.name: job for job in self.served()} if served_only else self._all()
        try:
            return jobs[name]
        except KeyError:
            raise NotFound(f"no job {name!r}; known jobs: {', '.join(jobs)}") from None

    def served(self) -> list[Job]:
        """The operations clients see (MCP, HTTP, `remecli job`), in definition order."""
        return [job for job in self._all().values() if job.served]

    def of(self, handler: object) -> Job:
        """The registered operation whose handler is `handler` (a programming error if none)."""
        for job in self._all().values():
            if job.handler is handler:
                return job
        raise ValueError(f"{getattr(handler, '__name__', handler)!r} is not a registered job")

    def for_params(self, params: type[BaseModel]) -> Job:
        """The one operation taking `params` (a programming error if none, or several).
        Params that name their result belong to one job, defined when they were: found
        without importing every operation module (`remecli sessions` stays light)."""
        job = self._by_params.get(params)
        if job is None or declared_result(params) is None:
            self._all()
            job = self._by_params.get(params)
        if job is None:
            why = "several jobs take it" if params in self._by_params else "no job takes it"
            raise ValueError(
                f"{params.__name__}: {why}; call a job by params of its own "
                "(`class ThingParams(JobParams[ThingResult])`)"
            )
        return job

    def names(self) -> list[str]:
        """Operation names in definition order."""
        return list(self._all())

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._all().values()))

    def __len__(self) -> int:
        return len(self._all())


JOBS = JobRegistry(BUILTIN_JOB_MODULES)
