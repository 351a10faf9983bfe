"""`remecli memory changes`: the memory_changed_facts operation from the shell — the facts that
changed, newest first, one line each."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

from remecli.config.locations import Locations
from remecli.config.settings import Settings


def changes(settings: Settings, locations: Locations, *, since: str | None, as_json: bool) -> int:
    """Print each superseded claim: when it held, what replaced it, where it is written."""
    return asyncio.run(_changes(settings, since, as_json))


async def _changes(settings: Settings, since: str | None, as_json: bool) -> int:
    from remecli.ops import JobRunner
    from remecli.ops.claims_job import ChangedFactsParams, memory_changed_facts

    runner = JobRunner.from_settings(settings)
    params = ChangedFactsParams(since=dt.date.fromisoformat(since) if since else None, limit=200)
    found = await runner.call(memory_changed_facts, params)
    if as_json:
        print(json.dumps([f.model_dump() for f in found.facts], ensure_ascii=False, indent=2))
        return 0
    if not found.facts and since:
        print(f"no fact changed on or after {since}")
        return 0
    if not found.facts:
        print("no changed facts yet (a changed fact is struck through: see docs/memory.md)")
        return 0
    for fact in found.facts:
        held = f"{fact.since} to {fact.until}" if fact.since else f"until {fact.until}"
        by = f" → {fact.replaced_by}" if fact.replaced_by else ""
        print(f"{fact.until}  {fact.text}{by}  ({held}; {fact.path}:{fact.line})")
    if found.total > len(found.facts):
        print(f"… {found.total - len(found.facts)} more")
    return 0
