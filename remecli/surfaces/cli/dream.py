"""`remecli dream`: the memory_dream operation from the shell, its outcome in one line."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys

from remecli.config.settings import Settings


def parse_date(text: str) -> dt.date:
    """`YYYY-MM-DD` as a date; raises ValueError with a usable message."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"date must be YYYY-MM-DD, got {text!r}") from None


def dream_once(settings: Settings, day: dt.date | None = None) -> int:
    """Run one dream over the cards up to `day` (default: today); exit 0 when it completed."""
    return asyncio.run(_dream(settings, day))


async def _dream(settings: Settings, day: dt.date | None) -> int:
    from remecli.ops import JobError
    from remecli.ops.knowledge_jobs import DreamParams, memory_dream
    from remecli.surfaces.cli.job import one_shot

    _memory, runner = one_shot(settings, search=False)  # the cards and the digest: no index
    await runner.start(background=False)
    try:
        result = await runner.call(memory_dream, DreamParams(date=day))
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    finally:
        await runner.close(timeout=None)
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 1
