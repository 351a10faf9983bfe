"""Dream's own state in `<working_dir>/.dream/`: the catalog of consolidated cards and the lock.

The catalog maps each consolidated card to its size, mtime and content hash, so a card whose
size and mtime are unchanged is never re-read; a touched card with the same hash is not
consolidated again. A card is recorded only after every unit resting on it succeeded: a failed
input is retried next run. The lock (`notes.locks` on `.dream/lock`) keeps one dream at a time
across processes.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remecli.config.privacy import private_dirs
from remecli.knowledge.background.backoff import Backoff, read_backoff
from remecli.notes.atomic_write import atomic_write_text
from remecli.notes.layout import WorkingDir
from remecli.notes.locks import FileLock

_DAY_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class DreamBusy(RuntimeError):
    """Another dream holds the lock."""


@dataclass
class ChangedCard:
    """A card to consolidate: its path relative to the working dir, text and hash."""

    rel: str
    text: str
    sha256: str
    stat: tuple[int, int]


@dataclass
class Catalog:
    """What the last successful runs consolidated, and when."""

    path: Path
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_success: str | None = None
    # failed runs since the last success (`knowledge.background.backoff`: attempts, retry_after)
    backoff: Backoff = field(default_factory=lambda: Backoff())

    @classmethod
    def load(cls, working_dir: WorkingDir) -> Catalog:
        """The catalog on disk (empty when missing or unreadable)."""
        path = state_dir(working_dir) / "catalog.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict):
            return cls(path)
        cards = data.get("cards") if isinstance(data.get("cards"), dict) else {}
        backoff = read_backoff(data.get("backoff"))
        return cls(path, dict(cards or {}), data.get("last_success"), backoff)

    def save(self) -> None:
        """Write the catalog atomically."""
        payload: dict[str, object] = {
            "version": 1,
            "last_success": self.last_success,
            "backoff": self.backoff,
        }
        payload["cards"] = self.cards
        atomic_write_text(self.path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")

    def record(self, card: ChangedCard) -> None:
        """Mark `card` as consolidated in its current version."""
        size, mtime = card.stat
        self.cards[card.rel] = {"size": size, "mtime_ns": mtime, "sha256": card.sha256}

    def last_success_time(self) -> dt.datetime | None:
        """When the last successful dream finished (aware datetime), None if never."""
        if not self.last_success:
            return None
        try:
            moment = dt.datetime.fromisoformat(self.last_success)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.astimezone()


def state_dir(working_dir: WorkingDir) -> Path:
    """`<working_dir>/.dream/`."""
    return working_dir.dream_dir


def card_entries(
    working_dir: WorkingDir, until: dt.date | None = None
) -> list[tuple[str, Path, tuple[int, int]]]:
    """(relative path, path, (size, mtime_ns)) of every card `memory/YYYY-MM-DD/*.md` of a day
    up to `until` (all days when None), oldest day first. One `scandir` per day folder."""
    found: list[tuple[str, Path, tuple[int, int]]] = []
    limit = f"{until:%Y-%m-%d}" if until is not None else None
    try:
        days = sorted(
            e.name
            for e in os.scandir(working_dir.memory_dir)
            if _DAY_FOLDER.match(e.name) and e.is_dir()
        )
    except OSError:
        return found
    for day in days:
        if limit is not None and day > limit:
            continue
        folder = working_dir.memory_dir / day
        with contextlib.suppress(OSError):
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if not entry.name.endswith(".md") or not entry.is_file():
                    continue
                info = entry.stat()
                found.append(
                    (
                        f"memory/{day}/{entry.name}",
                        Path(entry.path),
                        (info.st_size, info.st_mtime_ns),
                    )
                )
    return found


def _unchanged_stat(entry: Mapping[str, object] | None, stat: tuple[int, int]) -> bool:
    return entry is not None and (entry.get("size"), entry.get("mtime_ns")) == stat


def has_changed_cards(working_dir: WorkingDir, catalog: Catalog) -> bool:
    """True when some card is new or changed since it was consolidated (stat only, cheap)."""
    return any(
        not _unchanged_stat(catalog.cards.get(rel), stat)
        for rel, _, stat in card_entries(working_dir)
    )


def changed_cards(
    working_dir: WorkingDir, catalog: Catalog, until: dt.date | None = None
) -> list[ChangedCard]:
    """Cards new or changed since consolidated; unchanged ones (by size and mtime) are not read.

    A card re-saved with the same content gets its new stat recorded and is skipped.
    """
    changed: list[ChangedCard] = []
    for rel, path, stat in card_entries(working_dir, until):
        entry = catalog.cards.get(rel)
        if _unchanged_stat(entry, stat):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeError):
            continue
        card = ChangedCard(rel, text, hashlib.sha256(text.encode()).hexdigest(), stat)
        if entry and entry.get("sha256") == card.sha256:
            catalog.record(card)
            continue
        changed.append(card)
    return changed


@contextlib.contextmanager
def dream_lock(working_dir: WorkingDir) -> Iterator[None]:
    """Hold the dream lock for the block; raises DreamBusy at once when another holds it."""
    folder = state_dir(working_dir)
    private_dirs(folder)
    lock = FileLock(folder / "lock")
    if not lock.acquire(blocking=False):
        raise DreamBusy("another dream is running on this working dir")
    try:
        yield
    finally:
        lock.release()
