"""What the model says about one resource: the card's name, description, tags and key points,
asked from the file's bounded, redacted text (`resources.extract`), one retry on an unusable
answer. The caller (`ResourceCards`) asks the model gate first: no model, no request."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from remecli.knowledge.resources.extract import Extracted

if TYPE_CHECKING:
    from remecli.llm.chat_model import ChatModel

FOLDER = Path(__file__).parent / "prompts"  # resource_card, resource_retry (English + `.zh.md`)


class CardSummary(BaseModel):
    """The model's answer for one resource."""

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(min_length=12, max_length=2_000)
    tags: list[str] = Field(default_factory=list, max_length=12)
    key_points: list[str] = Field(default_factory=list, max_length=30)


async def summarize_resource(
    model_getter: Callable[[], ChatModel],
    language: str,
    retries: int,
    rel: str,
    extracted: Extracted,
) -> CardSummary:
    """Ask the model for the card's fields of resource `rel` (one retry on an unusable
    answer; RuntimeError after two)."""
    from remecli.config.prompt_files import fill, load_prompt
    from remecli.knowledge.dream.model_call import ask_json
    from remecli.llm.chat_model import JSONAnswerError, assistant, system, user
    from remecli.notes.redact import redact_secrets

    system_text, user_text = _prompt_pair(
        language,
        today=f"{dt.date.today():%Y-%m-%d}",
        file=rel,
        kind=extracted.kind,
        size=extracted.size,
        clipped=_clipped_note(language) if extracted.clipped else "",
        content=redact_secrets(extracted.text).text,  # secrets never leave the machine
    )
    messages = [system(system_text), user(user_text)]
    problem = ""
    for _attempt in range(2):
        try:
            return CardSummary.model_validate(
                await ask_json(model_getter(), messages, CardSummary, retries)
            )
        except JSONAnswerError as exc:
            problem = exc.problem
            messages += [
                assistant(exc.answer or "(empty)"),
                user(fill(load_prompt(FOLDER, "resource_retry", language), problem=problem)),
            ]
    raise RuntimeError(f"the model's answer was unusable twice ({problem}); try again later")


def _prompt_pair(language: str, **values: object) -> tuple[str, str]:
    from remecli.config.prompt_files import load_prompt, render
    from remecli.knowledge.summary.prompts import USER_PART_MARKER

    template = load_prompt(FOLDER, "resource_card", language)
    system, _, user = template.partition(USER_PART_MARKER)
    content = values.pop("content")
    return render(system.strip(), **values), render(render(user.strip(), **values), content=content)


def _clipped_note(language: str) -> str:
    return "，中间部分已省略" if language == "zh" else "; the middle was left out"
