"""`remecli ingest`: resources to cards from the shell.

A PATH inside `<working_dir>/resource/` is used where it is; a file elsewhere is copied into
`resource/` first, a folder's files into `resource/<folder>/` (`knowledge.resources.place`: the
original stays; a file that would be refused is not copied; the same file changed replaces its
copy and its card is updated in place; a different file of the same name is refused unless
`--replace`). A file that cannot be read is reported and the others go on; without a configured
model nothing is sent (said once) and the files wait in `resource/`. No PATH: every
resource. `--prune` lists the cards whose resource is gone; with `--yes` it removes them through
the memory writer (kept in history).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from remecli.config.settings import Settings
from remecli.ops import JobRunner
from remecli.ops.resource_job import IngestOutcome, IngestParams
from remecli.ops.resource_place_job import PlacedFile, PlaceParams, PruneParams, RefusalParams
from remecli.surfaces.cli.job import one_shot

NOT_DONE = ("refused", "failed", "waiting")
SAME_FAILURES = 3  # files in a row failing for the same reason stop a batch: the rest wait
NOT_TRIED = "not tried: "


def _line(outcome: IngestOutcome) -> str:
    card = f" → {outcome.card}" if outcome.card else ""
    message = outcome.message.removeprefix(f"{outcome.resource}: ")  # named once
    return f"{outcome.status:9} {outcome.resource}{card}: {message}"


@asynccontextmanager
async def _runtime(settings: Settings) -> AsyncIterator[JobRunner]:
    """The runner of this command's operations (on one_shot's runtime: the one memory writer),
    started without background work or the search index (the next start indexes the new
    cards)."""
    _memory, runner = one_shot(settings, search=False)
    await runner.start(background=False)
    try:
        yield runner
    finally:
        await runner.close(timeout=None)


async def _prune(runner: JobRunner, remove: bool) -> int:
    orphans = (await runner.call(PruneParams(remove=remove))).orphans
    if not orphans:
        print("No card has lost its resource.")
        return 0
    for orphan in orphans:
        print(f"{'removed' if remove else 'gone':9} {orphan.card} (was {orphan.resource})")
    if not remove:
        print(f"{len(orphans)} card(s) whose resource is gone; run `remecli ingest --prune --yes`")
        print("to remove them (they stay in `remecli memory history`).")
    return 0


def prune(settings: Settings, *, remove: bool) -> int:
    """List the cards whose resource is gone; with `remove`, remove them (kept in history)."""

    async def run() -> int:
        async with _runtime(settings) as runner:
            return await _prune(runner, remove)

    return asyncio.run(run())


def _reason(outcome: IngestOutcome) -> str:
    return outcome.message.removeprefix(f"{outcome.resource}: ")


def _same_failure(outcomes: list[IngestOutcome]) -> str:
    """The reason when the last `SAME_FAILURES` files failed alike (the model unreachable, a
    full disk): trying thousands more would fail the same way, one by one; "" otherwise."""
    last = outcomes[-SAME_FAILURES:]
    if len(last) < SAME_FAILURES or any(o.status != "failed" for o in last):
        return ""
    reasons = {_reason(o) for o in last}
    return reasons.pop() if len(reasons) == 1 else ""


def _not_tried(rel: str, reason: str) -> IngestOutcome:
    message = f"{rel}: {NOT_TRIED}{SAME_FAILURES} files in a row failed ({reason}); left in "
    message += "resource/: run `remecli ingest` again once that is fixed"
    return IngestOutcome(resource=rel, status="waiting", card=None, message=message)


def _not_placed(placed: PlacedFile) -> IngestOutcome:
    status = "skipped" if placed.problem == "skipped" else "refused"
    return IngestOutcome(resource=placed.source, status=status, card=None, message=placed.message)


async def _ingest(
    settings: Settings, paths: list[str], replace: bool
) -> tuple[list[IngestOutcome], bool]:
    """(the outcome of each file, through the memory_ingest operation; True when a PATH itself
    was wrong: missing, or clashing with another file of its name)."""
    async with _runtime(settings) as runner:
        placed = (await runner.call(PlaceParams(paths=paths, replace=replace))).placed
        outcomes: list[IngestOutcome] = []
        for number, item in enumerate(placed):
            if item.rel is None:
                outcomes.append(_not_placed(item))
                continue
            reason = _same_failure(outcomes)
            if reason:  # the model or the disk fails every file alike: the rest wait
                rest = placed[number:]
                outcomes += [_not_placed(r) for r in rest if r.rel is None]
                outcomes += [_not_tried(r.rel, reason) for r in rest if r.rel is not None]
                break
            try:
                result = await runner.call(IngestParams(path=item.rel))
            except Exception as exc:  # a JobError (the path refused): one line, the rest go on
                message = f"{item.rel}: {str(exc) or type(exc).__name__}"
                outcomes.append(
                    IngestOutcome(resource=item.rel, status="refused", card=None, message=message)
                )
                continue
            outcomes += result.outcomes
        if any(o.status == "waiting" for o in outcomes):  # no model: what is missing, once
            refusal = await runner.call(RefusalParams(work="resource cards"))
            print(refusal.line or "", file=sys.stderr)
        return outcomes, any(item.problem == "usage" for item in placed)


def ingest(
    settings: Settings, paths: list[str], *, as_json: bool = False, replace: bool = False
) -> int:
    """Turn `paths` (files or folders; default: every resource) into cards; exit 0 when every
    file became (or already was) a card or was skipped in a folder, 2 when a PATH was missing or
    clashed with another file, 1 when a file was refused or failed."""
    outcomes, wrong_path = asyncio.run(_ingest(settings, paths, replace))
    if not outcomes:
        print(f"Nothing to ingest: put files into {settings_resource_dir(settings)} or name them.")
        return 0
    if as_json:
        print(json.dumps([o.model_dump() for o in outcomes], ensure_ascii=False, indent=2))
    else:
        untried = [o for o in outcomes if _reason(o).startswith(NOT_TRIED)]
        for outcome in outcomes[: len(outcomes) - len(untried)]:
            bad = outcome.status in (*NOT_DONE, "skipped")
            print(_line(outcome), file=sys.stderr if bad else sys.stdout)
        if untried:  # one line for all of them
            why = _reason(untried[0]).removeprefix(NOT_TRIED)
            print(f"waiting   {len(untried)} more file(s), {NOT_TRIED}{why}", file=sys.stderr)
    if wrong_path:
        return 2
    return 1 if any(o.status in NOT_DONE for o in outcomes) else 0


def settings_resource_dir(settings: Settings) -> str:
    """Where resources go for these settings (for the message when there is nothing)."""
    from remecli.config.locations import Locations

    return str(Locations.from_settings(settings).resource_dir)
