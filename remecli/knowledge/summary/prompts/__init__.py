"""The summarizer's prompt files (`<name>.md`, `<name>.zh.md`): `summarize` (the daily log) and
`summarize_card` (a conversation's card) filled in for one conversation part, and the card
writer's example bullets, which a small model copies into the card.

The system prompt says how a card looks and what to keep; the user message holds the transcript,
the card as it is now (when the conversation has one: a small model then needs no `read`), and
what the user explicitly asked to remember, said last (a small model follows the latest
instruction; the 1.5B local model otherwise judged "please remember …" not worth storing).

The prompt shows a card with one example bullet per section ("- Facts worth keeping: exact
paths, names, commands, …"); measured on Qwen2.5-Coder 1.5B, the card of "please remember: …"
kept the example's `## Details` line, so a reader would take "problems that stop progress" for a
fact. Code removes such copies (`without_card_examples`, read from the files, every language).
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.prompt_files import bullet_key, example_bullets, fill, load_prompt, render
from remecli.knowledge.cards.card import card_sections

if TYPE_CHECKING:
    from remecli.knowledge.summary.scope import CardScope

FOLDER = Path(__file__).parent
NOTHING_MARKER = "[nothing to store]"
USER_PART_MARKER = "<!-- user -->"
_LANGUAGES = ("", "zh")
_FENCE = "```"


def prompt(name: str, language: str = "", **values: object) -> str:
    """Prompt `name` in `language`, with `{key}` placeholders filled in one pass."""
    return fill(load_prompt(FOLDER, name, language), **values)


def card_prompts(
    transcript: str, scope: CardScope, asked: list[str], language: str
) -> tuple[str, str]:
    """(system prompt, user message) from the `summarize_card` prompt file, the user's
    explicit requests to remember (if any) said after the transcript."""
    current, timeline, details = card_sections(language)
    day = f"{scope.date:%Y-%m-%d}"
    if scope.card is not None:
        card_path = scope.relative(scope.card)
        state = prompt("card_state_existing", language, card_path=card_path, day=day)
    else:
        state = prompt("card_state_new", language, day=day)
    template = load_prompt(FOLDER, "summarize_card", language)
    system, _, user = template.partition(USER_PART_MARKER)
    values = {
        "day": day,
        "folder": scope.folder_name(),
        "card_state": state.strip(),
        "current": current,
        "timeline": timeline,
        "details": details,
        "nothing_marker": NOTHING_MARKER,
        "now": f"{dt.datetime.now():%Y-%m-%d %H:%M}",
    }
    user = render(user.strip(), **values, transcript=transcript)
    if scope.card is not None and scope.card.is_file():  # no `read` needed to see it
        shown = scope.card.read_text(encoding="utf-8", errors="replace")
        user += (
            "\n\n"
            + prompt(
                "card_current",
                language,
                card_path=scope.relative(scope.card),
                card=shown,
                timeline=timeline,
            ).strip()
        )
    if asked:  # said last: a small model follows the latest instruction
        facts = "\n".join(f"- {fact}" for fact in asked)
        user += (
            "\n\n"
            + prompt("card_remember", language, facts=facts, nothing_marker=NOTHING_MARKER).strip()
        )
    return render(system.strip(), **values), user


@functools.cache
def card_examples() -> frozenset[str]:
    """The example bullets of the card the card writer's prompt shows (its fenced example)."""
    found: set[str] = set()
    for language in _LANGUAGES:
        text = prompt("summarize_card", language)
        start = text.find(_FENCE)
        found |= example_bullets(text[start : text.find(_FENCE, start + len(_FENCE))])
    return frozenset(found)


def without_card_examples(text: str, keep: str = "") -> str:
    """A card's `text` without copied example bullets (lines also in `keep`, the card as it
    was, stay: removing them is the user's call)."""
    examples = card_examples() - {bullet_key(line) for line in keep.splitlines()}
    lines = text.splitlines()
    kept = [line for line in lines if bullet_key(line) not in examples]
    if len(kept) == len(lines):
        return text
    return "\n".join(kept) + ("\n" if text.endswith("\n") else "")
