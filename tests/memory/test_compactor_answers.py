"""How the Compactor reads and re-asks for answers: an in-process model, no HTTP."""

from __future__ import annotations

import asyncio

import pytest

from remecli.conversation.compactor import Compactor
from remecli.conversation.prompts import missing_sections, sections
from remecli.llm.chat_model import ChatMessage
from remecli.llm.tokens import get_token_counter
from tests.fakes.mock_model import MockModel
from tests.memory.conftest import checkpoint


def _messages(count: int) -> list:
    from agentscope.message import AssistantMsg, UserMsg

    out = []
    for i in range(count):
        out.append(UserMsg(name="user", content=f"question {i}: about the database"))
        out.append(AssistantMsg(name="ReMe", content=f"answer {i}"))
    return out


def _compactor(model: MockModel, language: str = "") -> Compactor:
    counter = get_token_counter("o200k_base")
    return Compactor(model, counter, language, 8_000, max_retries=0, retry_base_delay=0.01)


def _text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content for m in messages)


async def test_fenced_answer_with_preamble_is_cleaned() -> None:
    model = MockModel("Here you go:\n```markdown\n" + checkpoint("x") + "\n```")
    result = await _compactor(model).compact(_messages(1))
    assert result.summary.startswith("## Goal") and not missing_sections(result.summary)
    assert result.retries == 0


async def test_chinese_prompts_and_sections() -> None:
    zh = "\n\n".join(f"{h}\n- 内容{i}" for i, h in enumerate(sections("zh")))
    model = MockModel(zh)
    result = await _compactor(model, language="zh").compact(_messages(1), focus="数据库")
    text = _text(model.prompts[0])
    assert "使用中文书写" in text and "数据库" in text and "## 关键上下文" in text
    assert result.summary.strip() == zh and result.retries == 0


async def test_missing_sections_are_asked_for_once_then_taken_from_the_previous() -> None:
    partial = checkpoint("new").split("\n\n")[0]  # only the Goal section
    model = MockModel(partial, partial)
    result = await _compactor(model).compact(_messages(1), previous_summary=checkpoint("old"))
    assert result.ok and result.retries == 1 and len(model.prompts) == 2
    first, second = model.prompts
    assert [m.role for m in first] == ["system", "user"]
    assert second[:2] == first and [m.role for m in second[2:]] == ["assistant", "user"]
    assert second[2].content.strip() == partial
    assert "new 0" in result.summary and "old 5" in result.summary
    assert len(result.filled_sections) == len(sections("")) - 1


async def test_a_failing_model_gives_the_fallback_and_an_interrupted_one_raises() -> None:
    failing = _compactor(MockModel(RuntimeError("model down")))
    result = await failing.compact(_messages(1), previous_summary=checkpoint("prev"))
    assert not result.ok and "model down" in (result.error or "")
    assert "prev 0" in result.summary and not missing_sections(result.summary)
    interrupted = _compactor(MockModel(asyncio.CancelledError("the model call was interrupted")))
    with pytest.raises(asyncio.CancelledError):
        await interrupted.compact(_messages(1))
