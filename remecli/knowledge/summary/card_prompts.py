"""The card writer's prompts: the `summarize_card` file filled in for one conversation part.

The system prompt says how a card looks and what to keep; the user message holds the transcript,
the card as it is now (when the conversation has one: a small model then needs no `read`), and
what the user explicitly asked to remember, said last (a small model follows the latest
instruction; the 1.5B local model otherwise judged "please remember …" not worth storing).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from remecli.config.prompt_files import load_prompt, render
from remecli.knowledge import prompts

NOTHING_MARKER = "[nothing to store]"
USER_PART_MARKER = "<!-- user -->"


def card_prompts(transcript: str, scope: Any, asked: list[str], language: str) -> tuple[str, str]:
    """(system prompt, user message) from the `summarize_card` prompt file, the user's
    explicit requests to remember (if any) said after the transcript."""
    current, timeline, details = prompts.card_sections(language)
    day = f"{scope.date:%Y-%m-%d}"
    if scope.card is not None:
        card_path = scope.relative(scope.card)
        state = prompts.prompt("card_state_existing", language, card_path=card_path, day=day)
    else:
        state = prompts.prompt("card_state_new", language, day=day)
    template = load_prompt(prompts.FOLDER, "summarize_card", language)
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
            + prompts.prompt(
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
            + prompts.prompt(
                "card_remember", language, facts=facts, nothing_marker=NOTHING_MARKER
            ).strip()
        )
    return render(system.strip(), **values), user
