"""Long memory jobs started from Studio (memory_reindex, memory_dream) and their progress as
server-sent events: one task of a kind at a time; every event is kept, so a page that connects
late (or reconnects) replays them from the start and then follows live.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TypedDict

from remecli.ops import JobError, JobRunner
from remecli.ops.context import JobContext
from remecli.ops.errors import InvalidParams, NotFound, ReadOnlyRefused

LONG_JOBS = ("memory_reindex", "memory_dream")
KEEP_TASKS = 20
HEARTBEAT_SECONDS = 15.0
CHECK_SECONDS = 0.5  # how often a quiet stream looks whether the server is stopping


Event = dict[str, object]  # one JSON event of a task: {"kind": started | progress | …, …}


class TaskSummary(TypedDict):
    id: str
    job: str
    done: bool
    last: Event


@dataclass
class Task:
    """One run of a long job: what happened so far, and who waits for more."""

    id: str
    job: str
    events: list[Event] = field(default_factory=list)
    done: bool = False
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def add(self, event: Event, *, last: bool = False) -> None:
        async with self.changed:
            self.events.append(event)
            self.done = self.done or last
            self.changed.notify_all()

    def summary(self) -> TaskSummary:
        return TaskSummary(id=self.id, job=self.job, done=self.done, last=self.events[-1])


class Tasks:
    """The long jobs of one Studio (in memory: a restart forgets them)."""

    def __init__(self, runner: JobRunner) -> None:
        self.runner = runner
        self._tasks: dict[str, Task] = {}
        self._numbers = itertools.count(1)
        self._keep: set[asyncio.Task[None]] = set()

    def running(self, job: str) -> Task | None:
        return next((t for t in self._tasks.values() if t.job == job and not t.done), None)

    def get(self, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None:
            raise NotFound(f"no task {task_id!r}; start one from the Health page")
        return task

    def latest(self) -> list[TaskSummary]:
        return [task.summary() for task in self._tasks.values()]

    async def start(self, job: str) -> Task:
        """Start `job` (or answer the run of it already going)."""
        if job not in LONG_JOBS:
            raise InvalidParams(f"{job!r} is not one of {', '.join(LONG_JOBS)}")
        if self.runner.registry.get(job) not in self.runner.available():
            raise ReadOnlyRefused(
                f"{job} changes memory and this server runs read-only; restart it without "
                "--read-only to allow it"
            )
        already = self.running(job)
        if already is not None:
            return already
        task = Task(f"{job.removeprefix('memory_')}-{next(self._numbers)}", job)
        task.events.append({"kind": "started", "job": job})
        self._tasks[task.id] = task
        for old in list(self._tasks)[:-KEEP_TASKS]:
            self._tasks.pop(old)
        running = asyncio.create_task(self._run(task))
        self._keep.add(running)
        running.add_done_callback(self._keep.discard)
        return task

    async def _run(self, task: Task) -> None:
        loop = asyncio.get_running_loop()

        def progress(stage: str, done: int, total: int) -> None:  # from the index's thread
            event = {"kind": "progress", "stage": stage, "done": done, "total": total}
            asyncio.run_coroutine_threadsafe(task.add(event), loop)

        job = self.runner.registry.get(task.job)
        context = JobContext(self.runner.memory, progress=progress)  # this run's progress only
        try:
            result = await job.handler(context, job.params.model_validate({}))
        except JobError as exc:
            await task.add({"kind": "failed", "error": str(exc), "code": exc.code}, last=True)
        except Exception as exc:  # noqa: BLE001 - the page must hear that it ended
            await task.add({"kind": "failed", "error": f"{type(exc).__name__}: {exc}"}, last=True)
        else:
            await task.add(
                {"kind": "finished", "result": result.model_dump(mode="json")}, last=True
            )

    async def stream(self, task: Task, stopping: asyncio.Event | None = None) -> AsyncIterator[str]:
        """The task's events as `text/event-stream` frames: all so far, then each new one; it
        ends when the task does, or when the server stops (`stopping`: it must not wait)."""
        sent = 0
        quiet = 0.0
        while True:
            async with task.changed:
                if sent == len(task.events) and not task.done:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(task.changed.wait(), CHECK_SECONDS)
                fresh, sent = task.events[sent:], len(task.events)
                finished = task.done
            for event in fresh:
                yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n"
            if finished and sent == len(task.events):
                return
            if stopping is not None and stopping.is_set():
                return
            quiet = 0.0 if fresh else quiet + CHECK_SECONDS
            if quiet >= HEARTBEAT_SECONDS:
                quiet = 0.0
                yield ": still working\n\n"
