"""Extraction: one model call turns the changed cards into at most N units (and interests)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from remecli.knowledge.dream import prompts
from remecli.knowledge.dream.model_call import ask_json
from remecli.knowledge.dream.state import ChangedCard
from remecli.llm.chat_model import ChatModel, JSONAnswerError, assistant, system, user

CARD_CHARS = 6_000  # characters of one card shown to the extraction


class Unit(BaseModel):
    """One durable idea to integrate into the digest."""

    name: str = Field(min_length=1)
    bucket: Literal["personal", "procedure", "wiki"]
    summary: str = Field(min_length=1)
    paths: list[str] = Field(min_length=1)


class Interest(BaseModel):
    """A topic the user may want to follow."""

    title: str = Field(min_length=1)
    reason: str = ""
    evidence: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)

    @field_validator("keywords", "evidence", mode="before")
    @classmethod
    def _listify(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class Extraction(BaseModel):
    """What the extraction call answered (paths limited to the cards it was given)."""

    units: list[Unit] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    interests: list[Interest] = Field(default_factory=list)


class ExtractionError(RuntimeError):
    """The model's answer could not be used, twice."""


def parse_extraction(data: object, known: set[str], max_units: int) -> Extraction:
    """The extraction in `data` (JSON that fits `Extraction`), unknown card paths dropped."""
    result = Extraction.model_validate(data)
    units = []
    for unit in result.units:
        unit.paths = [p for p in dict.fromkeys(unit.paths) if p in known]
        if unit.paths:
            units.append(unit)
    result.units = units[:max_units]
    result.skipped = [p for p in dict.fromkeys(result.skipped) if p in known]
    for interest in result.interests:
        interest.evidence = [p for p in interest.evidence if p in known]
    return result


def cards_text(cards: list[ChangedCard]) -> str:
    """The cards as the extraction sees them."""
    parts = []
    for card in cards:
        body = card.text if len(card.text) <= CARD_CHARS else card.text[:CARD_CHARS] + "\n[…]"
        parts.append(f'<card path="{card.rel}">\n{body.strip()}\n</card>')
    return "\n\n".join(parts)


async def extract_units(
    model: ChatModel,
    cards: list[ChangedCard],
    *,
    language: str,
    max_units: int,
    recent_titles: list[str],
    today: dt.date,
    max_retries: int,
) -> Extraction:
    """Ask for units (one retry on an unusable answer); raises ExtractionError."""
    system_text, user_text = prompts.prompt_pair(
        "extract",
        language,
        {"cards": cards_text(cards)},
        max_units=max_units,
        recent_titles=", ".join(f'"{t}"' for t in recent_titles) or "(none)",
        today=f"{today:%Y-%m-%d}",
    )
    messages = [system(system_text), user(user_text)]
    known = {card.rel for card in cards}
    problem = ""
    for _attempt in range(2):
        try:
            data = await ask_json(model, messages, Extraction, max_retries)
            return parse_extraction(data, known, max_units)
        except JSONAnswerError as exc:
            problem = exc.problem
            messages += [
                assistant(exc.answer or "(empty)"),
                user(prompts.prompt("extract_retry", language, problem=problem)),
            ]
    raise ExtractionError(f"the extraction answer was unusable twice ({problem})")
