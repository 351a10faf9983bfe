"""`remecli ingest`: resources to cards from the shell.

A PATH inside `<working_dir>/resource/` is used where it is; a file elsewhere is copied into
`resource/` first, a folder's files into `resource/<folder>/` (`knowledge.resources_place`: the
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
from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.resources import ResourceCards
from remecli.knowledge.resources_place import Placed, ResourcePlacer
from remecli.ops import JobRunner
from remecli.ops.resource_job import IngestOutcome, IngestParams, memory_ingest
from remecli.surfaces.cli.job import one_shot

NOT_DONE = ("refused", "failed", "waiting")


def _line(outcome: IngestOutcome) -> str:
    card = f" → {outcome.card}" if outcome.card else ""
    message = outcome.message.removeprefix(f"{outcome.resource}: ")  # named once
    return f"{outcome.status:9} {outcome.resource}{card}: {message}"


@asynccontextmanager
async def _runtime(settings: Settings) -> AsyncIterator[tuple[FileMemory, JobRunner]]:
    """This command's runtime (its composition root: the one memory writer) and the runner of
    its operations, started without background work or the search index (the next start
    indexes the new cards)."""
    memory, runner = one_shot(settings, search=False)
    await runner.start(background=False)
    try:
        yield memory, runner
    finally:
        await runner.close(timeout=None)


def _prune(cards: ResourceCards, remove: bool) -> int:
    orphans = cards.prune(remove=remove)
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
        async with _runtime(settings) as (memory, _runner):
            return await asyncio.to_thread(_prune, memory.resources, remove)

    return asyncio.run(run())


def _not_placed(placed: Placed) -> IngestOutcome:
    status = "skipped" if placed.problem == "skipped" else "refused"
    return IngestOutcome(resource=placed.source, status=status, card=None, message=placed.message)


async def _ingest(
    settings: Settings, paths: list[str], replace: bool
) -> tuple[list[IngestOutcome], bool]:
    """(the outcome of each file, through the memory_ingest operation; True when a PATH itself
    was wrong: missing, or clashing with another file of its name)."""
    async with _runtime(settings) as (memory, runner):
        cards = memory.resources
        placer = ResourcePlacer(cards, replace=replace)
        if paths:
            placed = [p for raw in paths for p in await asyncio.to_thread(placer.place, raw)]
        else:
            placed = [Placed(rel, rel) for rel in cards.resources()]
            placed += [
                Placed(rel, problem="skipped", message=message) for rel, message in cards.skipped()
            ]
        outcomes: list[IngestOutcome] = []
        for item in placed:
            if item.rel is None:
                outcomes.append(_not_placed(item))
                continue
            try:
                result = await runner.call(memory_ingest, IngestParams(path=item.rel))
            except Exception as exc:  # a JobError (the path refused): one line, the rest go on
                message = f"{item.rel}: {str(exc) or type(exc).__name__}"
                outcomes.append(
                    IngestOutcome(resource=item.rel, status="refused", card=None, message=message)
                )
                continue
            outcomes += result.outcomes
        if any(o.status == "waiting" for o in outcomes):  # no model: what is missing, once
            print(cards.gate.refusal("resource cards") or "", file=sys.stderr)
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
        for outcome in outcomes:
            bad = outcome.status in (*NOT_DONE, "skipped")
            print(_line(outcome), file=sys.stderr if bad else sys.stdout)
    if wrong_path:
        return 2
    return 1 if any(o.status in NOT_DONE for o in outcomes) else 0


def settings_resource_dir(settings: Settings) -> str:
    """Where resources go for these settings (for the message when there is nothing)."""
    from remecli.config.locations import Locations

    return str(Locations.from_settings(settings).resource_dir)
