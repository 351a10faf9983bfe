"""`remecli ingest`: resources to cards from the shell.

A PATH inside `<working_dir>/resource/` is used where it is; a file elsewhere is copied into
`resource/` first (the original stays where it was; a different file of the same name already
there is refused, never overwritten). No PATH: every resource. `--prune` lists the cards whose
resource is gone; with `--yes` it removes them through the memory writer (kept in history).
"""

from __future__ import annotations

import asyncio
import filecmp
import json
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from remecli.config.settings import Settings
from remecli.conversation.file_memory import FileMemory
from remecli.knowledge.resources import ResourceCards
from remecli.knowledge.resources_extract import is_resource_name
from remecli.ops import JobRunner
from remecli.ops.resource_job import IngestOutcome, IngestParams, memory_ingest
from remecli.surfaces.cli.job import one_shot


class IngestUsage(ValueError):
    """A PATH that cannot be ingested; the message says what to do."""


def place(cards: ResourceCards, raw: str) -> str:
    """`resource/<file>` for PATH, copying a file from outside into the resource folder."""
    source = Path(raw).expanduser()
    if not source.is_file():
        raise IngestUsage(f"{raw}: no such file")
    folder = cards.folder
    try:
        return cards.relative(source)
    except ValueError:
        pass  # outside resource/: copied in
    if not is_resource_name(source.name):
        raise IngestUsage(
            f"{raw}: unsupported type; use .md, .txt, .json, .jsonl, .csv, .yaml or .html"
        )
    target = folder / source.name
    if target.exists() and not filecmp.cmp(source, target, shallow=False):
        raise IngestUsage(
            f"{target} already exists with other content; rename {source.name} and try again"
        )
    folder.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copy2(source, target)
    return cards.relative(target)


def _line(outcome: IngestOutcome) -> str:
    card = f" → {outcome.card}" if outcome.card else ""
    return f"{outcome.status:9} {outcome.resource}{card}: {outcome.message}"


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


async def _ingest(settings: Settings, paths: list[str]) -> list[IngestOutcome] | int:
    """The outcome of each file, through the memory_ingest operation; or an exit code."""
    async with _runtime(settings) as (memory, runner):
        cards = memory.resources
        try:
            rels = [place(cards, raw) for raw in paths] if paths else cards.resources()
        except (IngestUsage, OSError) as exc:
            print(f"remecli ingest: {exc}", file=sys.stderr)
            return 2
        if not rels:
            print(f"Nothing to ingest: put files into {cards.folder} or name them.")
            return 0
        outcomes: list[IngestOutcome] = []
        for rel in rels:
            result = await runner.call(memory_ingest, IngestParams(path=rel))
            outcomes += result.outcomes
        return outcomes


def ingest(settings: Settings, paths: list[str], *, as_json: bool = False) -> int:
    """Turn `paths` (default: every resource) into cards; exit 0 when every file became (or
    already was) a card, 2 for a PATH that cannot be ingested, 1 when one was refused or failed."""
    outcomes = asyncio.run(_ingest(settings, paths))
    if isinstance(outcomes, int):
        return outcomes
    if as_json:
        print(json.dumps([o.model_dump() for o in outcomes], ensure_ascii=False, indent=2))
    else:
        for outcome in outcomes:
            print(
                _line(outcome),
                file=sys.stderr if outcome.status in ("failed", "refused") else sys.stdout,
            )
    return 1 if any(o.status in ("refused", "failed") for o in outcomes) else 0
