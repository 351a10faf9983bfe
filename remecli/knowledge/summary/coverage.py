"""New turns a card update left out, put into the card by code, whatever the model did.

Measured on Qwen2.5-Coder 1.5B: asked to update a conversation's card with the turns that came
after it was written, it wrote back the card it was shown without them, so the facts of those
turns were lost. After every update, code checks each new message against the card as saved: a
message the card does not cover — one of its names, numbers or paths is missing, or most of its
plain words are — is appended to the card's timeline as
`- HH:MM role: what was said [[sessions/<id>.jsonl#L<n>-L<n>]]`, citing its transcript line.
Old lines stay as they are (the timeline is append-only), so the card rules hold.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.knowledge.cards.card import card_sections, message_line_numbers, source_link
from remecli.knowledge.cards.rules import TIMELINE_TITLES
from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.layout import WorkingDir
from remecli.notes.redact import redact_secrets
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.llm.conversation_state import ContextMessage

ENTRY_LIMIT = 300  # characters kept of one message in its timeline entry
_WORD = re.compile(r"[#\w][\w.,:/#+-]*\w|\w", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff]+")
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_STAMPED = re.compile(r"^\[(\d\d:\d\d)\] (\w+): (.*)$", re.DOTALL)
_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$")
# words that say nothing about the conversation's facts (a card need not repeat them)
_STOPWORD_TEXT = """about above after again also always among another because been before being
    below between both cannot could does doing done down during each either else even ever every
    from further have having here hers into just least less like made make many might more
    most much must need never next none only other ours over same should since some still
    such than that their theirs them then there these they this those through thus under
    until upon very want were what when where which while will with within without would
    your yours yourself okay sure thanks thank please right well good great let's lets welcome
    hello sorry cheers"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Turn:
    """One new message as the card would record it: local time, role, text, transcript line."""

    stamp: str
    role: str
    text: str
    line: int | None


def _normal(text: str) -> str:
    return _DIGIT_COMMA.sub("", text.lower())


def _is_marked(word: str) -> bool:
    """A number, path or identifier (a digit, `_`, `.`, `/`, `#`, or camelCase inside)."""
    return any(ch.isdigit() or ch in "_./#" for ch in word) or (
        any(ch.isupper() for ch in word[1:]) and any(ch.islower() for ch in word)
    )


def salient_words(text: str) -> tuple[set[str], set[str]]:
    """(marked words: numbers, paths, identifiers; plain words: names and other content
    words) of `text`, lower-cased. Chinese text counts by its two-character pieces."""
    marked: set[str] = set()
    plain: set[str] = set()
    for word in _WORD.findall(text):
        if _CJK.search(word):
            continue
        if _is_marked(word):
            marked.add(_normal(word).strip(".,:#"))
        elif len(word) >= 4 and word.lower() not in _STOPWORDS:
            plain.add(word.lower())
    for run in _CJK.findall(text):
        plain.update(run[i : i + 2] for i in range(len(run) - 1))
    return {word for word in marked if len(word) > 1}, plain


def is_covered(text: str, card: str) -> bool:
    """True when `card` records what `text` says: every number, path and identifier of it and
    a third of its other words, or (when it has none of the first) half of its words."""
    marked, plain = salient_words(text)
    held = _normal(card)
    if any(word not in held for word in marked):
        return False
    if not marked and len(plain) < 2:  # "ok thanks!", "You're welcome.": nothing to record
        return True
    hits = sum(word in held for word in plain)
    return hits * (3 if marked else 2) >= len(plain)


def new_turns(
    messages: Iterable[ContextMessage], line_of: Callable[[str], int | None]
) -> list[Turn]:
    """The messages that carry text, as turns (stamp and role as the transcript shows them)."""
    from remecli.knowledge.summary.summarizer import (
        message_lines,  # the summarizer imports this module
    )

    turns: list[Turn] = []
    for msg in messages:
        shown = [line for line in message_lines(msg)[0] if not line.startswith("### ")]
        match = _STAMPED.match(shown[0]) if shown else None
        if match is None or match.group(3).strip() in ("", "(tool use)"):
            continue
        text = " ".join(match.group(3).split())
        turns.append(Turn(match.group(1), match.group(2), text, line_of(str(msg.id))))
    return turns


def missing_entries(turns: list[Turn], card: str, session_id: str) -> list[str]:
    """Timeline entries for the turns `card` does not cover, in order."""
    entries: list[str] = []
    for turn in turns:
        if is_covered(turn.text, card):
            continue
        text = turn.text if len(turn.text) <= ENTRY_LIMIT else turn.text[: ENTRY_LIMIT - 1] + "…"
        cited = f" {source_link(session_id, (turn.line, turn.line))}" if turn.line else ""
        entries.append(f"- {turn.stamp} {turn.role}: {text}{cited}")
    return entries


def with_timeline_entries(card: str, entries: list[str], timeline_title: str) -> str:
    """`card` with `entries` appended at the end of its timeline (a timeline added if none)."""
    note = read_frontmatter(card)
    lines = note.body.rstrip("\n").splitlines()
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if (m := _HEADING.match(line.strip())) and m.group(1).strip().lower() in TIMELINE_TITLES
        ),
        None,
    )
    if start is None:
        lines += ["", f"## {timeline_title}", *entries]
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if _HEADING.match(lines[i].strip())),
            len(lines),
        )
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1
        lines[end:end] = entries
    head = card[: len(card) - len(note.body)]  # the frontmatter exactly as it was
    return head + "\n".join(lines) + "\n"


async def add_missing_turns(
    working_dir: WorkingDir,
    writer: MemoryWriter,
    card: Path,
    messages: list[ContextMessage],
    *,
    day: dt.date,
    session_id: str,
    lines: tuple[int, int] | None,
    language: str = "",
    redact: bool = True,
) -> list[str]:
    """Append to `card` (updated from `messages`) the turns it does not cover, through the card
    writer's own tools and checks; the files written ([] when it covers them all)."""
    from remecli.knowledge.summary.scope import CardScope
    from remecli.knowledge.summary.tools import MemoryFileTools

    scope = CardScope(working_dir, day, session_id, lines, card)
    tools = MemoryFileTools(working_dir, day, scope, writer=writer)
    name = scope.relative(card)
    await tools.read(name)
    old = tools.known_text(name)
    if old is None:
        return []
    line_of = message_line_numbers(working_dir.transcript_file(session_id)).get
    turns = new_turns(messages, line_of)
    if redact:  # as the transcript the model saw: no secret reaches the card
        turns = [Turn(t.stamp, t.role, redact_secrets(t.text).text, t.line) for t in turns]
    entries = missing_entries(turns, old, session_id)
    if not entries:
        return []
    timeline = card_sections(language)[1]
    await tools.write(name, with_timeline_entries(old, entries, timeline))
    return list(tools.written)
