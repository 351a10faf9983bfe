"""Every fault an OpenAI-compatible server produces, driven through the real client and agent.

Per fault: one clear line for the user, the session answers the next message, the transcript
reads back whole, and every request stays well-formed (strict and plain wire validation of the
fault-injecting fake server; never two user turns in a row).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from remecli.agent import events as ev
from remecli.agent.context_repair import INTERRUPTED_MARK
from remecli.conversation.transcript import Transcript
from tests.agent.conftest import collect
from tests.fakes.faulty_openai import FaultyOpenAIServer, closed_url
from tests.fakes.messages import content_text

OVERFLOW = "This model's maximum context length is 8192 tokens"


def _errors(events: list[Any]) -> list[ev.ErrorReport]:
    return [e for e in events if isinstance(e, ev.ErrorReport)]


def _text(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, ev.TextDelta))


Script = Callable[[FaultyOpenAIServer], Any]
OK = "fine after the fault"
FAULTS: dict[str, tuple[Script, str | None]] = {
    # name: (how the server misbehaves, the error kind the user sees or None when absorbed)
    "429 with Retry-After, then success": (
        lambda f: [f.add_error(429, "slow down", headers={"retry-after": "0"}), f.add_text(OK)],
        None,
    ),
    "429 every time": (
        lambda f: [f.add_error(429, "slow down", headers={"retry-after": "0"}) for _ in "12"],
        "rate_limit",
    ),
    "500 once, then success": (lambda f: [f.add_error(500, "boom"), f.add_text(OK)], None),
    "503 every time": (lambda f: [f.add_error(503, "overloaded") for _ in "12"], "server"),
    "hang before headers": (lambda f: [f.add_hang(5) for _ in "12"], "timeout"),
    # a stream that fails after it started is reported, not replayed: one fault turn each
    "stream starts then only keep-alives": (lambda f: f.add_drip(5), "timeout"),
    "stream cut mid-text": (lambda f: f.add_cut_stream("partial answ"), "dropped"),
    "stream cut mid-tool-arguments": (
        lambda f: f.add_cut_tool_call("read", '{"path": "no'),
        "dropped",
    ),
    "malformed tool arguments": (
        lambda f: [f.add_tool_calls([("read", '{"path": "notes.txt"')]), f.add_text(OK)],
        None,
    ),
    "non-object tool arguments": (
        lambda f: [f.add_tool_calls([("read", "[1, 2]")]), f.add_text(OK)],
        None,
    ),
    "unknown tool": (
        lambda f: [f.add_tool_calls([("teleport", {"to": "mars"})]), f.add_text(OK)],
        None,
    ),
    "context overflow once": (
        lambda f: [f.add_error(400, OVERFLOW, code="context_length_exceeded"), f.add_text(OK)],
        None,
    ),
    "context overflow persistently": (
        lambda f: [f.add_error(400, OVERFLOW, code="context_length_exceeded") for _ in "12"],
        "context_overflow",
    ),
    "200 with empty choices": (lambda f: f.add_empty_choices(), "empty_answer"),
    "200 with a body that is not JSON": (lambda f: f.add_garbage(), "bad_response"),
    "401 bad key": (
        lambda f: f.add_error(401, "Incorrect API key", code="invalid_api_key"),
        "auth",
    ),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_llm_fault(fault: str, assistant_factory, fake_llm, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\n")
    script, kind = FAULTS[fault]
    script(fake_llm)
    assistant = assistant_factory("llm.timeout=1", "llm.max_retries=1")
    events = await collect(assistant, "first question")
    errors = _errors(events)
    if kind is None:
        assert not errors, errors
        assert OK in _text(events)
    else:
        [error] = errors
        assert error.kind == kind, error
        assert "\n" not in error.message and "Traceback" not in error.message
    fake_llm.add_text("recovered answer")
    events = await collect(assistant, "next question")
    assert not _errors(events), _errors(events)
    assert "recovered answer" in _text(events)
    assert fake_llm.violations == []
    sent = fake_llm.last_messages()
    roles = [m["role"] for m in sent]
    assert all(not (a == b == "user") for a, b in zip(roles, roles[1:], strict=False)), roles
    path = tmp_path / ".reme" / "sessions" / f"{assistant.agent.state.session_id}.jsonl"
    data = Transcript(path).read()
    assert data.skipped_lines == 0 and not data.torn_tail
    said = [m.get_text_content() for m in data.messages if m.role == "user"]
    assert "first question" in said and "next question" in said


async def test_refused_connection(assistant_factory, fake_llm, tmp_path: Path) -> None:
    assistant = assistant_factory(f"llm.base_url={closed_url()}", "llm.max_retries=0")
    [error] = _errors(await collect(assistant, "first question"))
    assert error.kind == "unreachable" and "llm.base_url" in error.message


async def test_a_cut_answer_is_marked_interrupted_in_the_next_request(
    assistant_factory, fake_llm
) -> None:
    fake_llm.add_tool_calls([("ls", {"path": "."})], text="Looking.")
    fake_llm.add_cut_stream("The folder holds")
    fake_llm.add_text("recovered answer")
    assistant = assistant_factory("llm.max_retries=0")
    assert _errors(await collect(assistant, "first question"))
    await collect(assistant, "next question")
    sent = fake_llm.last_messages()
    assistant_texts = [content_text(m) for m in sent if m["role"] == "assistant"]
    assert assistant_texts and assistant_texts[-1].endswith(INTERRUPTED_MARK)
    assert fake_llm.violations == []


async def test_retry_after_is_honoured_within_the_cap(fake_llm) -> None:
    import openai

    from remecli.llm.retry import call_with_backoff

    fake_llm.add_error(429, "slow down", headers={"retry-after": "0.2"})
    fake_llm.add_error(429, "slow down", headers={"retry-after": "3600"})
    fake_llm.add_text("ok")
    client = openai.AsyncOpenAI(base_url=fake_llm.base_url, api_key="sk-test", max_retries=0)
    waits: list[float] = []

    async def ask() -> object:
        return await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )

    await call_with_backoff(ask, 2, max_delay=0.3, on_retry=lambda n, e, d: waits.append(d))
    assert waits == [0.2, 0.3]  # the server's wish, then capped at max_delay
