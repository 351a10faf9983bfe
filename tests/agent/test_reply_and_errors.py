"""The agent answers through the real openai client + agentscope; every LLM error path is one
clear message and leaves the session usable with a well-formed context."""

from __future__ import annotations

import json

import pytest

from remecli.agent import events as ev
from tests.agent.conftest import collect
from tests.fakes.messages import content_text


async def test_streamed_answer_and_tool_call(assistant_factory, fake_llm, tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    fake_llm.add_tool_calls([("read", {"path": "notes.txt"})], text="Let me read it.")
    fake_llm.add_text("The file says alpha and beta.", chunk_size=5)
    assistant = assistant_factory()
    events = await collect(assistant, "What is in notes.txt?")
    text = "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert "Let me read it." in text and "alpha and beta" in text
    finished = [e for e in events if isinstance(e, ev.ToolFinished)]
    assert finished and finished[0].name == "read" and finished[0].state == "success"
    assert "alpha" in finished[0].output
    [done] = [e for e in events if isinstance(e, ev.ReplyFinished)]
    assert done.reason == "completed"
    assert isinstance(events[-1], ev.ContextUsage) and events[-1].tokens > 0
    # the tool result reached the model in the next request
    second = fake_llm.chat_requests()[1].body["messages"]
    assert any(m["role"] == "tool" and "alpha" in content_text(m) for m in second)
    # the system prompt names the assistant, the workspace, the time and the tools
    system = content_text(second[0])
    assert (
        "ReMe" in system
        and str(tmp_path) in system
        and "`read`" in system
        and "Current time" in system
    )


async def test_streaming_requests_usage(assistant_factory, fake_llm) -> None:
    fake_llm.add_text("hi")
    events = await collect(assistant_factory(), "hello")
    usage = [e for e in events if isinstance(e, ev.UsageReport)]
    assert usage and usage[0].input_tokens > 0
    assert fake_llm.chat_requests()[0].body["stream"] is True


def _errors(events):
    return [e for e in events if isinstance(e, ev.ErrorReport)]


@pytest.mark.parametrize(
    ("status", "code", "kind", "words"),
    [
        (401, "invalid_api_key", "auth", "REME_LLM_API_KEY"),
        (404, "model_not_found", "model", "llm.model_name"),
    ],
)
async def test_non_retryable_errors_are_one_clear_message(
    assistant_factory, fake_llm, status, code, kind, words
) -> None:
    fake_llm.add_error(status, "nope", code=code)
    fake_llm.add_text("recovered")
    assistant = assistant_factory()
    events = await collect(assistant, "first question")
    [error] = _errors(events)
    assert error.kind == kind and words in error.message and "\n" not in error.message
    assert len(fake_llm.chat_requests()) == 1  # not retried
    # session stays usable; the dropped question does not dangle in the next request
    events = await collect(assistant, "second question")
    assert not _errors(events)
    sent = fake_llm.chat_requests()[-1].body["messages"]
    assert [content_text(m) for m in sent if m["role"] == "user"] == ["second question"]


async def test_retry_with_backoff_then_success(assistant_factory, fake_llm) -> None:
    fake_llm.add_error(429, "slow down", code="rate_limit_exceeded")
    fake_llm.add_error(500, "boom")
    fake_llm.add_text("finally")
    assistant = assistant_factory("llm.max_retries=2")
    assistant_retry = assistant
    events = await collect(assistant_retry, "q")
    assert not _errors(events)
    assert "finally" in "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert len(fake_llm.chat_requests()) == 3


async def test_retries_are_bounded(assistant_factory, fake_llm) -> None:
    for _ in range(3):
        fake_llm.add_error(503, "overloaded")
    events = await collect(assistant_factory("llm.max_retries=1"), "q")
    [error] = _errors(events)
    assert error.kind == "server" and "Try again" in error.message
    assert len(fake_llm.chat_requests()) == 2  # one call + one retry, no SDK retries on top


async def test_timeout_is_reported(assistant_factory, fake_llm) -> None:
    fake_llm.add_text("too late", delay=3.0)
    events = await collect(assistant_factory("llm.timeout=0.5", "llm.max_retries=0"), "q")
    [error] = _errors(events)
    assert error.kind == "timeout" and "llm.timeout" in error.message


async def test_unreachable_base_url(assistant_factory, tmp_path) -> None:
    assistant = assistant_factory("llm.base_url=http://127.0.0.1:9/v1", "llm.max_retries=0")
    events = await collect(assistant, "q")
    [error] = _errors(events)
    assert error.kind == "unreachable" and "llm.base_url" in error.message


async def test_missing_api_key_says_how_to_set_it(fake_llm, tmp_path) -> None:
    from remecli.agent.assistant import Assistant
    from remecli.config import load_settings

    settings = load_settings(
        ["config=cli", f"working_dir={tmp_path}/.reme"], environ={}, cwd=tmp_path
    )
    events = await collect(Assistant(settings, cwd=tmp_path), "q")
    [error] = _errors(events)
    assert "REME_LLM_API_KEY" in error.message and "llm.api_key" in error.message
    assert fake_llm.requests == []


async def test_stream_cut_mid_answer_keeps_context_well_formed(assistant_factory, fake_llm) -> None:
    fake_llm.add_cut_stream("partial ans")
    fake_llm.add_text("whole answer")
    assistant = assistant_factory("llm.max_retries=0")
    events = await collect(assistant, "q1")
    assert _errors(events)
    events = await collect(assistant, "q2")
    assert not _errors(events), _errors(events)
    assert fake_llm.violations == []


async def test_context_overflow_compacts_and_retries_once_then_reports(
    assistant_factory, fake_llm
) -> None:
    fake_llm.add_error(
        400, "This model's maximum context length is 8192 tokens", code="context_length_exceeded"
    )
    fake_llm.add_error(
        400, "This model's maximum context length is 8192 tokens", code="context_length_exceeded"
    )
    fake_llm.add_text("recovered")
    assistant = assistant_factory()
    events = await collect(assistant, "first question")
    [error] = _errors(events)
    assert error.kind == "context_overflow" and "/compact" in error.message
    events = await collect(assistant, "second question")
    assert not _errors(events)
    assert "recovered" in "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert fake_llm.violations == []


async def test_update_params_at_runtime(assistant_factory, fake_llm) -> None:
    fake_llm.add_text("hi")
    assistant = assistant_factory()
    await collect(assistant, "hello")
    assistant.update_params(max_input_length=4000, memory_compact_ratio=0.5, language="zh")
    usage = assistant.context_usage()
    assert usage.max_input_length == 4000 and usage.threshold == 2000
    assert assistant.memory.settings.language == "zh"


async def test_resume_last_continues_with_the_same_context(assistant_factory, fake_llm) -> None:
    fake_llm.add_text("Noted: blue.")
    first = assistant_factory()
    await collect(first, "my favourite colour is blue")
    await first.close()
    before = fake_llm.chat_requests()[-1].body["messages"]
    fake_llm.add_text("Blue.")
    second = assistant_factory("resume=last")
    await collect(second, "what is my favourite colour?")
    after = fake_llm.chat_requests()[-1].body["messages"]
    assert (
        after[: len(before)][1:] == before[1:]
    )  # same conversation (system prompt time may differ)
    assert content_text(after[-1]) == "what is my favourite colour?"
    assert [content_text(m) for m in after[1:-1]] == ["my favourite colour is blue", "Noted: blue."]
    assert second.agent.state.session_id == first.agent.state.session_id


async def test_resume_unknown_id_says_what_to_do(assistant_factory) -> None:
    events = await collect(assistant_factory("resume=nope-123"), "hi")
    [error] = _errors(events)
    assert "nope-123" in error.message


async def test_malformed_tool_call_arguments_do_not_poison_the_next_request(
    assistant_factory, fake_llm, tmp_path
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.add_tool_calls([("read", '{"path": "a.txt"')])  # the model streams broken JSON
    fake_llm.add_text("done")
    events = await collect(assistant_factory(), "read a.txt")
    assert not _errors(events)
    sent = fake_llm.chat_requests()[-1].body["messages"]
    calls = [c for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert calls and json.loads(calls[0]["function"]["arguments"]) == {"path": "a.txt"}
    from tests.fakes import find_violations

    assert find_violations(fake_llm.chat_requests()[-1].body) == []  # we never send it back


def test_llm_error_raised_through_a_context_manager_stays_an_llm_error() -> None:
    import contextlib

    from remecli.llm.errors import LLMError

    @contextlib.contextmanager
    def guarded():
        yield

    with pytest.raises(LLMError) as caught, guarded():
        raise LLMError("Try again.", retryable=True, kind="server")
    assert caught.value.kind == "server" and caught.value.retryable
    assert str(caught.value) == "Try again." and caught.value.__traceback__ is not None


async def test_requests_use_the_plainest_message_shape(fake_llm, tmp_path) -> None:
    """Servers that reject `name` or need string content accept every request we send."""
    from remecli.agent.assistant import Assistant
    from tests.agent.conftest import make_settings

    fake_llm.plain_only = True
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_llm.add_tool_calls([("read", {"path": "a.txt"})], text="Reading.")
    fake_llm.add_text("It says alpha.")
    assistant = Assistant(make_settings(fake_llm, tmp_path), cwd=tmp_path)
    assert not _errors(await collect(assistant, "what is in a.txt?"))
    assert fake_llm.violations == []
    sent = fake_llm.chat_requests()[-1].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert all(isinstance(m["content"], str) and "name" not in m for m in sent)


def test_plain_shape_keeps_images_and_meaningful_names() -> None:
    from remecli.llm.wire_format import plain_message

    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    parts = [{"type": "text", "text": "look"}, image]
    assert plain_message({"role": "user", "name": "user", "content": parts}) == {
        "role": "user",
        "content": parts,
    }
    named = plain_message(
        {"role": "user", "name": "alice", "content": [{"type": "text", "text": "hi"}]}
    )
    assert named == {"role": "user", "name": "alice", "content": "hi"}
