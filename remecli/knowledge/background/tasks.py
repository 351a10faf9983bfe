"""Background summaries: hand messages to the summarizer without ever blocking the chat.

`add()` records the messages (`<pending_dir>/<id>.json`, written atomically) before it returns;
a task summarizes them and deletes the record on success. A failure, a cancel, a crash or a
kill -9 leaves them recorded; `retry_pending()` (start, `/compact`) runs them again, never a
second run of a record a live task owns. A failed record notes its `attempts` and `retry_after`
(the one policy of background model jobs, `backoff`); a start skips it after RETRY_LIMIT
failures (`/compact` still runs it). On a full disk a summary is not run unrecorded: it waits in
memory and is recorded and run once space returns (the next summary, `/compact` or the exit;
what still waits then is put aside outside the disk, `conversation.rescue`).
Summaries run one at a time, in order; a running record is locked, so a second remecli skips it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.disk_full import disk_full_text, is_disk_full, no_space_left
from remecli.knowledge.background.backoff import after_failure, retry_due
from remecli.knowledge.background.callbacks import OutcomeCallbacks
from remecli.knowledge.background.records import (
    PendingRecord,
    SummaryOutcome,
    _claim,
    _load_record,
    _parse_date,
    _remove,
    _write_record,
    failure_message,
)
from remecli.knowledge.background.waits import SpaceWaits
from remecli.knowledge.model_gate import ModelGate
from remecli.knowledge.summary.summarizer import Summarizer, SummaryResult
from remecli.llm.conversation_state import message_to_json
from remecli.notes.layout import WorkingDir
from remecli.notes.locks import FileLock

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage

log = logging.getLogger(__name__)

RECORD_VERSION = 1


def pending_dir_of(working_dir: WorkingDir) -> Path:
    """Where pending summary records live: `sessions/pending/` under the working dir."""
    return working_dir.pending_dir


class SummaryTasks(OutcomeCallbacks):
    """Runs summaries as asyncio tasks and keeps unsaved messages recorded on disk.

    `on_change(running_count)` is called whenever the number of running tasks changes;
    `on_done(outcome)` when a task ends (either may be sync or async; errors are logged).
    """

    def __init__(
        self,
        summarizer: Summarizer,
        pending_dir: Path,
        *,
        on_change: Callable[[int], object] | None = None,
        on_done: Callable[[SummaryOutcome], object] | None = None,
        gate: ModelGate | None = None,
    ) -> None:
        self.summarizer = summarizer
        # no summary starts without a configured model (the runtime shares one gate)
        self.gate = gate or ModelGate(summarizer.model_problem)
        self.pending_dir = Path(pending_dir)
        self.on_change = on_change
        self.on_done = on_done
        self.live = on_done is not None  # on_done shows outcomes to the user as they come
        self._running: dict[str, asyncio.Task[SummaryOutcome]] = {}
        self._unreported: list[SummaryOutcome] = []
        self._last_turn: asyncio.Event | None = None  # set when the newest task has ended
        self._callbacks: set[asyncio.Future[object]] = set()  # async on_change calls in flight
        self.waits = SpaceWaits(self.pending_dir)  # a full disk: run once space is back

    # ------------------------------------------------------------------ public
    @property
    def pending_count(self) -> int:
        """Summaries running or waiting their turn in this process."""
        return len(self._running)

    def record_file(self, task_id: str) -> Path:
        """The on-disk record of task `task_id`."""
        return self.pending_dir / f"{task_id}.json"

    def pending_records(self) -> list[Path]:
        """Records on disk: running tasks, failed ones and ones left by an earlier run."""
        if not self.pending_dir.is_dir():
            return []
        return sorted(self.pending_dir.glob("*.json"))

    def add(
        self,
        messages: list[ContextMessage],
        *,
        date: dt.date | None = None,
        session_id: str | None = None,
    ) -> str:
        """Start summarizing `messages` in the background; returns the task id at once.

        The record is on disk when this returns (one small atomic write, done here on purpose:
        a crash right after `add()` must not lose the messages).
        """
        self.start_waiting()
        task_id = uuid.uuid4().hex[:12]
        day = date or dt.date.today()
        record: PendingRecord = {
            "version": RECORD_VERSION,
            "id": task_id,
            "date": day.isoformat(),
            "created_at": dt.datetime.now().isoformat(),  # the order retries keep
            "attempts": 0,
            "last_error": "",
            "session_id": session_id,  # its topic card; None: the day page's log
            "messages": [message_to_json(m) for m in messages],
        }
        try:
            _write_record(self.record_file(task_id), record)
            recorded = True
        except OSError:  # the task tries again and reports a failure if it cannot
            log.exception("could not record summary %s", task_id)
            recorded = False
        self._start(task_id, list(messages), day, record, recorded=recorded)
        return task_id

    async def retry_pending(self, *, due_only: bool = True) -> list[str]:
        """Re-run recorded summaries not already running here; returns their task ids.

        `due_only` (a start): skip records still waiting out their backoff and ones that
        failed RETRY_LIMIT times; without it (`/compact`, asked for) every record runs."""
        started = self.start_waiting()
        now = dt.datetime.now()
        found = []
        for path in await asyncio.to_thread(self.pending_records):
            if path.stem not in self._running:
                loaded = await asyncio.to_thread(_load_record, path)
                found += [(path.stem, *loaded)] if loaded is not None else []
        found.sort(key=lambda item: str(item[1].get("created_at") or ""))  # oldest first
        for task_id, record, messages in found:  # (a card's Timeline stays in order)
            if task_id in self._running:  # a concurrent retry started it
                continue
            if due_only and not retry_due(record, now):
                continue
            day = _parse_date(record.get("date"))
            if self._start(task_id, messages, day, record, recorded=True):
                started.append(task_id)
        return started

    async def await_all(self, timeout: float | None = None) -> list[str]:
        """Wait for every running summary (also ones added meanwhile), at most `timeout` s.

        Returns one status line per task finished since the last call, then one per task still
        running when the timeout expired (those keep running; their messages stay recorded).
        """
        self.start_waiting()
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self._running:
            remaining = None if deadline is None else max(0.0, deadline - loop.time())
            if remaining == 0.0:
                break
            _, still = await asyncio.wait(list(self._running.values()), timeout=remaining)
            if still and deadline is not None and loop.time() >= deadline:
                break
        lines = [outcome.message for outcome in self._unreported]
        self._unreported.clear()
        lines += [
            f"Summary {task_id} is still running; its messages are kept in "
            f"{self.record_file(task_id)} and will be retried at next start."
            for task_id in self._running
        ]
        return lines  # what could never be recorded: `FileMemory.close` puts it aside

    def start_waiting(self) -> list[str]:
        """Start the summaries that waited for space and can run now; their task ids."""
        started = []
        for task_id, messages, day, record in self.waits.ready(set(self._running)):
            if self._start(task_id, messages, day, record, recorded=True):
                started.append(task_id)
        return started

    async def cancel_all(self) -> list[str]:
        """Stop every running summary (e.g. a forced exit); their messages stay recorded.

        Returns the status lines of the cancelled tasks.
        """
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return await self.await_all(timeout=0)

    # ---------------------------------------------------------------- running
    def _start(
        self,
        task_id: str,
        messages: list[ContextMessage],
        day: dt.date,
        record: PendingRecord,
        *,
        recorded: bool,
    ) -> bool:
        """Run the summary as a task; False (not started, its record kept) without a model."""
        refusal = self.gate.refusal("card summaries")
        if refusal is not None:
            self._paused(task_id, refusal, recorded)
            return False
        previous, turn = self._last_turn, asyncio.Event()
        self._last_turn = turn
        task = asyncio.create_task(
            self._run(task_id, messages, day, record, recorded, previous),
            name=f"summary-{task_id}",
        )
        self._running[task_id] = task

        def ended(_: asyncio.Task[SummaryOutcome]) -> None:
            turn.set()  # the next task may summarize now
            self._never_started(task_id, record, recorded)

        task.add_done_callback(ended)
        self._changed()
        return True

    def _paused(self, task_id: str, refusal: str, recorded: bool) -> None:
        """A summary not started for want of a model: its record stays for a later start;
        the gate's explanation is shown once."""
        if not recorded:
            log.warning("summary %s: no model configured and not recorded", task_id)
        if not refusal:
            return
        outcome = SummaryOutcome(task_id, "paused", refusal, pending_file=self.record_file(task_id))
        if self.on_done is not None:
            self._keep(self._call(self.on_done, outcome))
        if not self.live:  # said once: as it happens (a front-end), else in await_all's lines
            self._unreported.append(outcome)

    def _never_started(self, task_id: str, record: PendingRecord, recorded: bool) -> None:
        """A task cancelled before its first step skips `_run`'s handlers: record it here."""
        if task_id not in self._running:
            return
        path = self.record_file(task_id)
        if not recorded and not path.exists():
            with contextlib.suppress(OSError):
                _write_record(path, record)
        count = len(record.get("messages", []))
        message = (
            f"Summary {task_id} was interrupted; its {count} messages are kept in {path} "
            "and will be summarized at next start or on /compact."
        )
        self._finish(
            task_id, SummaryOutcome(task_id, "cancelled", message, pending_file=path), None
        )

    async def _run(
        self,
        task_id: str,
        messages: list[ContextMessage],
        day: dt.date,
        record: PendingRecord,
        recorded: bool,
        previous: asyncio.Event | None,
    ) -> SummaryOutcome:
        path = self.record_file(task_id)
        claim: FileLock | None = None
        outcome: SummaryOutcome
        try:
            if not recorded and not await asyncio.to_thread(
                self.waits.record_or_wait, path, messages, day, record
            ):
                outcome = SummaryOutcome(
                    task_id,
                    "waiting",
                    f"Summary {task_id} waits: {disk_full_text(path.parent)}; its "
                    f"{len(messages)} messages are kept in memory and summarized once space "
                    "is freed (still waiting at exit: put aside elsewhere, named then).",
                )
                self._finish(task_id, outcome, None)
                await self._notify(outcome)
                return outcome
            recorded = True
            claim = await asyncio.to_thread(_claim, path)
            if claim is None:
                outcome = SummaryOutcome(
                    task_id, "skipped", f"Summary {task_id}: handled elsewhere."
                )
            else:
                if previous is not None:  # one at a time, in the order they were added
                    await previous.wait()
                result = await self._summarize(messages, day, record.get("session_id"))
                outcome = await self._settle(task_id, path, record, result, len(messages))
        except asyncio.CancelledError:
            if not recorded:  # cancelled before its first step: record now (shutdown path)
                with contextlib.suppress(OSError):
                    _write_record(path, record)
            outcome = SummaryOutcome(
                task_id,
                "cancelled",
                f"Summary {task_id} was interrupted; its {len(messages)} messages are kept in "
                f"{path} and will be summarized at next start or on /compact.",
                pending_file=path,
            )
            self._finish(task_id, outcome, claim)
            raise
        except Exception as exc:  # a bug or a disk error: never lose the messages silently
            log.exception("background summary %s failed", task_id)
            full = is_disk_full(exc)
            if full and recorded:  # run again once space is back, in this run
                self.waits.after_space.add(task_id)
            detail = disk_full_text(path.parent) if full else f"{type(exc).__name__}: {exc}"
            outcome = self._failed(task_id, path, detail, len(messages), waits=full and recorded)
        self._finish(task_id, outcome, claim)
        await self._notify(outcome)
        return outcome

    async def _summarize(
        self, messages: list[ContextMessage], day: dt.date, session_id: str | None
    ) -> SummaryResult:
        """Into the conversation's topic card when its session is known, citing the transcript
        lines the messages come from; else into the day page's log."""
        if not session_id:
            return await self.summarizer.summarize(messages, date=day)
        from remecli.knowledge.cards.card import transcript_line_range

        transcript = self.summarizer.working_dir.transcript_file(session_id)
        ids = [m.id for m in messages]
        lines = await asyncio.to_thread(transcript_line_range, transcript, ids)
        return await self.summarizer.summarize(
            messages, date=day, session_id=session_id, lines=lines
        )

    async def _settle(
        self, task_id: str, path: Path, record: PendingRecord, result: SummaryResult, count: int
    ) -> SummaryOutcome:
        """Delete the record after a success; note the error in it after a failure."""
        if result.ok:
            await asyncio.to_thread(_remove, path)
            if result.status == "written":
                where = ", ".join(result.written) or str(result.path)
                message = f"Summary {task_id}: saved to {where}."
            else:
                message = f"Summary {task_id}: nothing worth storing."
            return SummaryOutcome(task_id, result.status, message, result)
        if no_space_left(self.pending_dir):  # the disk's fault, not the model's: no attempt
            self.waits.after_space.add(task_id)
            detail = f"{disk_full_text(path.parent)}: {result.detail}"
            outcome = self._failed(task_id, path, detail, count, waits=True)
            outcome.result = result
            return outcome
        record = {**record, **after_failure(record), "last_error": result.detail}
        await asyncio.to_thread(_write_record, path, record)
        outcome = self._failed(task_id, path, result.detail, count, record["attempts"])
        outcome.result = result
        return outcome

    def _failed(
        self,
        task_id: str,
        path: Path,
        detail: str,
        count: int,
        attempts: int = 0,
        waits: bool = False,
    ) -> SummaryOutcome:
        message = failure_message(task_id, path, detail, count, attempts, waits=waits)
        return SummaryOutcome(task_id, "failed", message, pending_file=path)

    def _finish(self, task_id: str, outcome: SummaryOutcome, claim: FileLock | None) -> None:
        if claim is not None:
            claim.release()
        self._running.pop(task_id, None)
        if outcome.status != "skipped":
            self._unreported.append(outcome)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is None:
            return
        self._keep(self._call(self.on_change, len(self._running)))
