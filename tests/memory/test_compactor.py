"""The Compactor on its own, through the real agentscope model and the fake server."""

from __future__ import annotations

import asyncio
import json

from remecli.conversation.compactor import Compactor
from remecli.conversation.prompts import missing_sections
from remecli.llm.model import build_chat_model
from remecli.llm.tokens import get_token_counter
from tests.fakes.turns import ErrorTurn, TextTurn
from tests.memory.conftest import Script, checkpoint, make_settings, request_text, words


def _messages(count: int, size: int) -> list:
    from agentscope.message import AssistantMsg, UserMsg

    out = []
    for i in range(count):
        out.append(UserMsg(name="user", content=f"question {i}: {words(size, seed=i)}"))
        out.append(AssistantMsg(name="ReMe", content=f"answer {i}"))
    return out


def _compactor(
    fake_llm, tmp_path, window: int, language: str = "", max_retries: int = 0
) -> Compactor:
    settings = make_settings(fake_llm, tmp_path)
    model = build_chat_model(settings.llm, context_size=window)
    return Compactor(
        model,
        get_token_counter("o200k_base"),
        language,
        window,
        max_retries=max_retries,
        retry_base_delay=0.01,
    )


async def test_too_large_part_is_compacted_in_stages_that_fit(fake_llm, tmp_path) -> None:
    script = Script(fake_llm)
    window = 2_000
    compactor = _compactor(fake_llm, tmp_path, window)
    result = await compactor.compact(_messages(12, 60), previous_summary=checkpoint("old"))
    assert result.ok and result.stages == len(script.compactions) >= 3
    counter = get_token_counter("o200k_base")
    for n, body in enumerate(script.compactions, start=1):
        assert counter.count(json.dumps(body["messages"], ensure_ascii=False)) < window
        expected_previous = "old 0" if n == 1 else f"gen{n - 1} 0"
        assert expected_previous in request_text(body)
        assert f"(part {n} of {result.stages})" in request_text(body)
    # every message reached some stage
    seen = "\n".join(request_text(b) for b in script.compactions)
    assert all(f"question {i}:" in seen for i in range(12))
    assert result.summary.strip() == checkpoint(f"gen{result.stages}").strip()


async def test_nothing_to_compact_returns_previous_summary_unchanged(fake_llm, tmp_path) -> None:
    script = Script(fake_llm)
    compactor = _compactor(fake_llm, tmp_path, 8_000)
    result = await compactor.compact([], previous_summary=checkpoint("keep"))
    assert result.summary == checkpoint("keep") and script.compactions == []


async def test_model_failure_after_retries_gives_deterministic_fallback(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback(ErrorTurn(500, "down"))
    compactor = _compactor(fake_llm, tmp_path, 8_000, max_retries=2)
    result = await compactor.compact(_messages(2, 5), previous_summary=checkpoint("prev"))
    assert len(fake_llm.chat_requests()) == 3  # the first try and two retries
    assert not result.ok and "down" in result.error
    assert not missing_sections(result.summary)
    assert "prev 0" in result.summary and "prev 4" in result.summary
    assert "Automatic summary failed" in result.summary and "question 1" in result.summary


async def test_transient_server_error_is_retried_into_a_real_checkpoint(fake_llm, tmp_path) -> None:
    fake_llm.add_error(500, "hiccup")
    fake_llm.add_error(429, "slow down", code="rate_limit_exceeded")
    script = Script(fake_llm)
    compactor = _compactor(fake_llm, tmp_path, 8_000, max_retries=2)
    result = await compactor.compact(_messages(2, 5), previous_summary=checkpoint("prev"))
    assert result.ok and result.error is None
    assert len(fake_llm.chat_requests()) == 3 and len(script.compactions) == 1
    assert result.summary.strip() == checkpoint("gen1").strip()


async def test_a_request_error_is_not_retried(fake_llm, tmp_path) -> None:
    fake_llm.add_error(400, "bad request")
    Script(fake_llm)
    compactor = _compactor(fake_llm, tmp_path, 8_000, max_retries=3)
    result = await compactor.compact(_messages(1, 5))
    assert not result.ok and "bad request" in result.error
    assert len(fake_llm.chat_requests()) == 1


async def test_cancelling_a_compaction_raises_and_sends_nothing_more(fake_llm, tmp_path) -> None:
    fake_llm.set_fallback(TextTurn(checkpoint("late"), delay=30.0))
    compactor = _compactor(fake_llm, tmp_path, 8_000, max_retries=3)
    task = asyncio.create_task(compactor.compact(_messages(2, 5), checkpoint("prev")))
    await fake_llm.wait_for_requests_async(1, path="/v1/chat/completions")
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=10)
    assert task in done and task.cancelled()  # not turned into a fallback checkpoint
    assert len(fake_llm.chat_requests()) == 1  # neither the section retry nor a backoff retry


# the 1.5B local model's checkpoint of FLAKY_TEST (tests/realmodel), shortened: real lines with
# the prompt's example bullets copied in under Progress, Key Decisions and Critical Context
COPIED_EXAMPLES = """## Goal
- fix the CI of project atlas so test_export_report passes consistently

## Constraints & Preferences
- the CI runners are in UTC and the expected file was made in Europe/Berlin time

## Progress
### Done
- [x] optimized the export of 50,000 rows from 40 seconds to 6 seconds
### In Progress
- [ ] work started but not finished, and where it stands
### Blocked
- problems that stop progress, with the exact error

## Key Decisions
- **Decision**: the reason for it

## Next Steps
1. ship the write_only export

## Critical Context
- exact paths, names, commands, values and error messages needed to continue
- the CI of project atlas fails now and then in test_export_report
"""


async def test_example_bullets_copied_from_the_prompt_are_dropped(fake_llm, tmp_path) -> None:
    fake_llm.add_text(COPIED_EXAMPLES)
    compactor = _compactor(fake_llm, tmp_path, 8_000)
    result = await compactor.compact(_messages(2, 20))
    assert result.ok and result.retries == 0 and not missing_sections(result.summary)
    assert result.summary == (
        COPIED_EXAMPLES.replace(
            "- [ ] work started but not finished, and where it stands", "- (none)"
        )
        .replace("- problems that stop progress, with the exact error", "- (none)")
        .replace("- **Decision**: the reason for it", "- (none)")
        .replace(
            "- exact paths, names, commands, values and error messages needed to continue\n", ""
        )
    )
