"""`dream()`: one consolidation run (`dream_due()`, whether the background should start one, is
in `due`: asking it loads no agent runtime).

A run: take the lock; recover what an interrupted dream left (`recovery`); find cards new or changed since the last successful runs (the catalog);
one extraction call turns at most `memory.dream.max_cards` of them into at most
`memory.dream.max_units` units; each unit gets exactly one verified action on the digest; the
catalog records the cards whose units all succeeded (and the cards judged to hold nothing
durable); interests are written. Cards of failed units, and cards left out because the unit cap
was reached, stay pending for the next run. `dream` never raises (except on cancellation).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass, field
from pathlib import Path

from remecli.config.settings import Settings
from remecli.knowledge.background.backoff import after_failure, attempts_of, when_retried
from remecli.knowledge.dream.changesets import PENDING, new_run_id
from remecli.knowledge.dream.day_pages import refresh_looked_at_days
from remecli.knowledge.dream.due import dream_due, local_now
from remecli.knowledge.dream.extract import CARD_CHARS, ExtractionError, extract_units
from remecli.knowledge.dream.integrate import UnitIntegrator, UnitOutcome
from remecli.knowledge.dream.interests import recent_titles, write_interests
from remecli.knowledge.dream.recovery import Recovered, recover_interrupted
from remecli.knowledge.dream.review import record_run
from remecli.knowledge.dream.state import (
    Catalog,
    ChangedCard,
    DreamBusy,
    changed_cards,
    dream_lock,
)
from remecli.llm.chat_model import ChatModel
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

__all__ = ["DreamResult", "dream", "dream_due"]
log = logging.getLogger(__name__)
EXTRACTION_SHARE = 0.5  # share of the window the cards of one extraction may take


@dataclass
class DreamResult:
    """Outcome of one dream: `status` is "done", "nothing", "partial", "failed" or "busy"."""

    status: str
    message: str
    outcomes: list[UnitOutcome] = field(default_factory=list)
    interests_file: Path | None = None
    cards_read: int = 0
    pending: int = 0
    recovered: list[Recovered] = field(default_factory=list)
    run_id: str = ""  # the changeset of this run (`.dream/runs/<run_id>.json`), "" when none

    @property
    def ok(self) -> bool:
        """True when the run completed and no unit failed."""
        return self.status in ("done", "nothing")


async def dream(
    settings: Settings,
    working_dir: WorkingDir | None = None,
    *,
    model: ChatModel | None = None,
    date: dt.date | None = None,
    writer: MemoryWriter | None = None,
) -> DreamResult:
    """Consolidate cards of days up to `date` (today) into the digest through `writer` (None:
    one for the working dir, for library use); see the module doc."""
    wd = working_dir or WorkingDir(Path(settings.working_dir))
    writer = writer or MemoryWriter.from_settings(wd.root, settings.memory)
    try:
        with dream_lock(wd):
            return await _dream_locked(settings, wd, model, date or dt.date.today(), writer)
    except DreamBusy:
        return DreamResult(
            "busy", "Dream: another dream is running on this working dir; try later."
        )


async def _dream_locked(
    settings: Settings,
    wd: WorkingDir,
    model: ChatModel | None,
    today: dt.date,
    writer: MemoryWriter,
) -> DreamResult:
    options = settings.memory.dream
    recovered = await asyncio.to_thread(recover_interrupted, wd, writer, today)
    catalog = await asyncio.to_thread(Catalog.load, wd)
    changed = await asyncio.to_thread(changed_cards, wd, catalog, today)
    await asyncio.to_thread(refresh_looked_at_days, wd, writer, catalog, changed)
    if not changed:
        catalog.last_success = local_now().isoformat(timespec="seconds")
        catalog.backoff = {}
        catalog.save()
        message = "Dream: no new or changed cards since the last dream."
        if recovered:
            message = f"{message[:-1]}; {_recovered_text(recovered)}."
        return DreamResult("nothing", message, recovered=recovered)
    batch = _batch(changed, options.max_cards, settings)
    later = changed[len(batch) :]
    try:
        if model is None:  # refused (ModelNotConfigured) without a configured model
            from remecli.llm.model import build_chat_model

            model = build_chat_model(
                settings.llm, context_size=settings.max_input_length, stream=False
            )
        extraction = await extract_units(
            model,
            batch,
            language=settings.language,
            max_units=options.max_units,
            recent_titles=recent_titles(wd, today),
            today=today,
            max_retries=settings.llm.max_retries,
        )
    except Exception as exc:  # an unusable answer, or the provider's error
        from remecli.llm.errors import classify

        log.warning("dream extraction failed: %s", exc)
        reason = exc if isinstance(exc, ExtractionError) else classify(exc, settings.llm).message
        return _failed(catalog, str(reason))
    integrator = UnitIntegrator(
        wd,
        model,
        language=settings.language,
        max_iters=options.max_iters,
        retries=settings.llm.max_retries,
        llm=settings.llm,
        writer=writer,
        review=options.review,
    )
    outcomes = [await integrator.integrate(unit, today) for unit in extraction.units]
    failed = {p for o in outcomes if not o.ok for p in o.unit.paths}
    used = {p for o in outcomes for p in o.unit.paths} | set(extraction.skipped)
    capped = len(extraction.units) >= options.max_units  # unmentioned cards may hold more
    pending = len(later)
    for card in batch:
        if card.rel in failed or (card.rel not in used and capped):
            pending += 1
        else:
            catalog.record(card)
    interests = write_interests(wd, today, extraction.interests, writer)
    catalog.last_success = local_now().isoformat(timespec="seconds")
    catalog.backoff = {}  # a run that completed: Auto Dream is due by its interval again
    catalog.save()
    status = "partial" if failed else ("done" if outcomes or interests else "nothing")
    message = _message(outcomes, interests, pending, wd)
    if recovered:
        message = f"{message[:-1]}; {_recovered_text(recovered)}."
    run_id = new_run_id()
    changeset = await asyncio.to_thread(
        record_run,
        wd,
        run_id,
        review=options.review,
        message=message,
        outcomes=outcomes,
        recovered=recovered,
    )
    if changeset.status == PENDING:
        message = (
            f"{message[:-1]}; waiting for your review: `remecli dream --show {run_id}`, then "
            f"`--approve {run_id}` or `--reject {run_id}` (nothing is in the digest yet)."
        )
    return DreamResult(status, message, outcomes, interests, len(batch), pending, recovered, run_id)


def _failed(catalog: Catalog, reason: str) -> DreamResult:
    """A run that failed: noted in the catalog, so Auto Dream backs off (`knowledge.background.backoff`,
    persisted) instead of retrying after every summary and at every start."""
    catalog.backoff = after_failure(catalog.backoff)
    catalog.save()
    again = when_retried(attempts_of(catalog.backoff), "/dream")
    return DreamResult(
        "failed", f"Dream failed: {reason.rstrip('. ')}. The cards are kept; Auto Dream: {again}."
    )


def _recovered_text(recovered: list[Recovered]) -> str:
    done = "; ".join(f"{r.action.lower()} {r.path}" for r in recovered)
    return f"recovered what an interrupted dream left ({done})"


def _batch(changed: list[ChangedCard], max_cards: int, settings: Settings) -> list[ChangedCard]:
    """The oldest cards that fit one extraction request (half the window; at least one)."""
    from remecli.llm.tokens import get_token_counter

    counter = get_token_counter(settings.memory.token_encoding)
    budget = int(settings.max_input_length * EXTRACTION_SHARE)
    batch: list[ChangedCard] = []
    used = 0
    for card in changed[:max_cards]:
        tokens = counter.count(card.text[:CARD_CHARS])
        if batch and used + tokens > budget:
            break
        batch.append(card)
        used += tokens
    return batch


def _message(
    outcomes: list[UnitOutcome], interests: Path | None, pending: int, wd: WorkingDir
) -> str:
    done = [
        f"{o.action} {o.path}" + ("" if o.changed else " (already there)") for o in outcomes if o.ok
    ]
    parts = [f"Dream: {len(done)} unit(s)" + (f" ({'; '.join(done)})" if done else "")]
    failed = [o for o in outcomes if not o.ok]
    if failed:
        parts.append(f"{len(failed)} failed ({failed[0].detail.rstrip('. ')}), retried next run")
    if interests is not None:
        parts.append(f"interests in {interests.relative_to(wd.root).as_posix()}")
    if pending:
        parts.append(f"{pending} card(s) left for the next run")
    return "; ".join(parts) + "."
