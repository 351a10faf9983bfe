"""`JobRunner`: runs registry jobs on one memory runtime for every surface of a process.

It validates parameters, refuses writing jobs in read-only mode, enforces the result size limit,
and owns the runtime's lifecycle: `start()` opens it, `close()` finishes (or records) pending
summaries and stops the index watcher.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, overload

from pydantic import BaseModel, ValidationError
from pydantic.config import JsonDict

from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, ReadOnlyRefused, TooLarge
from remecli.ops.errors import describe_validation as describe_validation  # its old home
from remecli.ops.host import MemoryHost, Progress
from remecli.ops.registry import JOBS, Job, JobParams, JobRegistry, JobResult, P, R, TypedHandler

if TYPE_CHECKING:
    from remecli.config.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_MAX_RESULT_BYTES = 1_000_000
CLOSE_TIMEOUT = 60.0


class JobRunner:
    """Runs jobs on `memory` (a `Runtime`, or the seed's `FileMemory` over one); one per
    process, shared by all its surfaces."""

    def __init__(
        self,
        memory: MemoryHost,
        *,
        read_only: bool = False,
        registry: JobRegistry = JOBS,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
    ) -> None:
        self.memory = memory
        self.read_only = read_only
        self.registry = registry
        self.max_result_bytes = max_result_bytes
        self.context = JobContext(memory)
        self._started = False

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        search: bool = True,
        read_only: bool = False,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
    ) -> JobRunner:
        """A runner on a new server runtime for `settings` (not started yet; `runner.memory` is
        the seed's `FileMemory` over it); `search=False`
        leaves the search index closed (jobs that need none: dream, links)."""
        from remecli.runtime import FileMemory, Mode, build_runtime

        memory = FileMemory.over(build_runtime(settings, Mode.SERVE, search=search))
        return cls(memory, read_only=read_only, max_result_bytes=max_result_bytes)

    @classmethod
    def for_vector_memory(cls, settings: Settings) -> JobRunner:
        """A runner on a runtime of `settings` holding only its vector memory (never started:
        the `remecli memories` commands; close `runner.memory.vector` when done)."""
        from remecli.runtime import Mode, build_runtime

        return cls(build_runtime(settings, Mode.VECTOR))

    @classmethod
    def stand_in(cls, host: object) -> JobRunner:
        """A runner on a stand-in for the runtime (a bare folder: `remecli sessions` opens no
        memory) serving only the jobs it is made for."""
        return cls(JobContext.stand_in(host).memory)

    def available(self) -> list[Job]:
        """Jobs this runner serves to clients (writing ones are left out in read-only mode)."""
        return [job for job in self.registry.served() if job.read_only or not self.read_only]

    async def start(
        self,
        *,
        wait_for_index: bool = False,
        background: bool = True,
        watch: bool | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Open the runtime: layout, search index (in the background unless `wait_for_index`),
        and for a server (`background=True`) pending summary retries, Auto Dream and the
        watchers. A one-shot command passes `background=False`: only the layout and the index
        open, so a read-only job never calls the model. `watch` (default: `background`) keeps
        the index following edits on disk. `progress` follows the first sync."""
        await self.memory.start(
            wait_for_index=wait_for_index, background=background, watch=watch, progress=progress
        )
        self._started = True

    async def close(self, timeout: float | None = CLOSE_TIMEOUT) -> list[str]:
        """Flush pending work: wait for summaries (unfinished ones stay recorded), stop the index."""
        if not self._started:
            return []
        self._started = False
        lines = await self.memory.close(wait=True, timeout=timeout)
        for line in lines:
            log.info("%s", line)
        return lines

    async def __aenter__(self) -> JobRunner:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def _check_allowed(self, job: Job) -> None:
        if not job.read_only and self.read_only:
            raise ReadOnlyRefused(
                f"{job.name} changes memory and this server runs read-only; restart it without "
                "--read-only to allow it"
            )

    @overload
    async def call(self, params: JobParams[R], /) -> R: ...
    @overload
    async def call(self, handler: TypedHandler[P, R], params: P, /) -> R: ...
    async def call(self, first: Any, params: Any = None, /) -> Any:
        """Run an operation in-process with typed params; its typed result (refused in
        read-only mode if it writes). No size limit: nothing crosses a wire.

        `call(ThingParams(...))` — the job is the one taking `ThingParams` — is how surfaces
        call. The core's own adapters (the agent's tools, search) may pass the handler too:
        `call(handler, params)`."""
        if params is not None:
            self._check_allowed(self.registry.of(first))
            return await first(self.context, params)
        return await self._execute(self.registry.for_params(type(first)), first)

    async def answer(self, params: BaseModel) -> JsonDict:
        """The JSON answer of the operation taking `params`, as a surface sends it on (Studio
        to the page): the result size limit applies, as for `run`."""
        job = self.registry.for_params(type(params))
        return self._limited(job.name, await self._execute(job, params))

    async def run(self, name: str, arguments: Mapping[str, object] | None) -> JsonDict:
        """Run job `name` with JSON-like `arguments`; its result as JSON (raises JobError)."""
        job = self.registry.get(name)
        self._check_allowed(job)
        try:
            params = job.params.model_validate(arguments or {})
        except ValidationError as exc:
            raise InvalidParams(describe_validation(name, exc)) from None
        return self._limited(name, await self._execute(job, params))

    async def _execute(self, job: Job, params: BaseModel) -> JobResult:
        """`job`'s result for validated `params` (refused in read-only mode if it writes)."""
        self._check_allowed(job)
        result = await job.handler(self.context, params)
        if not isinstance(result, job.result):
            raise TypeError(
                f"{job.name} returned {type(result).__name__}, not {job.result.__name__}"
            )
        return result

    def _limited(self, name: str, result: JobResult) -> JsonDict:
        """`result` as JSON, or TooLarge when it is over the size limit."""
        data: JsonDict = result.model_dump(mode="json")
        size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        if size > self.max_result_bytes:
            raise TooLarge(
                f"{name}: the result is {size} bytes, over the {self.max_result_bytes}-byte "
                "limit; ask for less (fewer results, a smaller line range)"
            )
        return data
