"""The day page `memory/YYYY-MM-DD.md`: a generated index of the day's cards, user text kept.

The index sits between `<!-- cards:auto -->` and `<!-- /cards:auto -->`; everything outside the
markers belongs to the user (or to the older bullet-log layout) and is never changed. The page is
rewritten only when the block's content changes. Cards are listed in the order they were
created (their first version in the history; the file's mtime without one), and a card deleted
by hand drops out at the next refresh of its day (the next card written that day, or the next
dream, which refreshes the days of deleted and changed cards).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from remecli.knowledge.cards.card import Card, list_cards
from remecli.knowledge.write import write_memory_file
from remecli.notes.files import read_memory_text
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

BLOCK_START = "<!-- cards:auto -->"
BLOCK_END = "<!-- /cards:auto -->"


def day_header(day: dt.date) -> str:
    """First line of a day page."""
    return f"# {day:%Y-%m-%d}"


def card_line(working_dir: WorkingDir, card: Card) -> str:
    """One index entry: a wikilink to the card with its name, then its description."""
    rel = card.path.relative_to(working_dir.root).as_posix()
    name = card.name.replace("|", "/").replace("]", ")")
    description = " ".join(card.description.split())
    return f"- [[{rel}|{name}]]" + (f": {description}" if description else "")


def created_at(card: Card, writer: MemoryWriter | None) -> str:
    """When `card` was created, as a sortable UTC time: its first version in the history, or
    (no history) the file's mtime."""
    if writer is not None and writer.history_enabled:
        try:
            versions = writer.history(card.path)
        except (OSError, ValueError):
            versions = []
        if versions:
            return versions[0].time
    try:
        mtime = card.path.stat().st_mtime
    except OSError:
        return ""
    return dt.datetime.fromtimestamp(mtime, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def in_time_order(cards: Iterable[Card], writer: MemoryWriter | None) -> list[Card]:
    """`cards`, oldest first (ties by file name)."""
    return sorted(cards, key=lambda card: (created_at(card, writer), card.path.name))


def index_block(working_dir: WorkingDir, day: dt.date, writer: MemoryWriter | None = None) -> str:
    """The generated block (markers included) for the cards of `day`, in creation order."""
    cards = in_time_order(list_cards(working_dir, day), writer)
    lines = [card_line(working_dir, card) for card in cards]
    return "\n".join([BLOCK_START, *lines, BLOCK_END])


def block_span(text: str) -> tuple[int, int] | None:
    """(start, end) character offsets of the generated block in `text`, markers included."""
    start = text.find(BLOCK_START)
    if start == -1:
        return None
    end = text.find(BLOCK_END, start)
    if end == -1:
        return None
    return start, end + len(BLOCK_END)


def without_block(text: str) -> str:
    """`text` with the generated block taken out (what the user owns)."""
    span = block_span(text)
    return text if span is None else text[: span[0]] + text[span[1] :]


def with_block(text: str | None, block: str, day: dt.date) -> str:
    """The page `text` (None: absent) with `block` in place of the old one, or added."""
    if text is None or not text.strip():
        return f"{day_header(day)}\n\n{block}\n"
    span = block_span(text)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("# "):  # right after the title line
        head = lines[0] if lines[0].endswith("\n") else lines[0] + "\n"
        rest = "".join(lines[1:]).lstrip("\n")
        return f"{head}\n{block}\n" + (f"\n{rest}" if rest else "")
    return f"{block}\n\n{text}"


def refresh_day_page(
    working_dir: WorkingDir, day: dt.date, writer: MemoryWriter, reason: str = "cards"
) -> bool:
    """Regenerate the index block of `day`'s page (written through `writer`); True when the
    file was rewritten.

    The page is read again right before the write; if the user changed it meanwhile, the
    block is put into the fresh text instead (never overwriting their edit).
    """
    path: Path = working_dir.daily_file(day)
    block = index_block(working_dir, day, writer)
    for _attempt in range(3):
        current = _read(path)
        if current is None and block == f"{BLOCK_START}\n{BLOCK_END}":
            return False
        updated = with_block(current, block, day)
        if updated == current:
            return False
        if _read(path) == current:
            write_memory_file(writer, path, updated, reason, base=current)
            return True
    return False


def _read(path: Path) -> str | None:
    try:
        return read_memory_text(path, keep_bytes=True)  # the user's bytes kept
    except FileNotFoundError:
        return None
