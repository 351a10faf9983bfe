"""/model against the fake server: list its models, switch for the rest of the conversation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from remecli.agent import events as ev
from remecli.commands import session_events as se
from tests.agent.test_chat_session import new_session, read_until_handled
from tests.fakes import FakeOpenAIServer


@pytest.fixture
def two_models() -> Iterator[FakeOpenAIServer]:
    """A server that knows fake-model and big-model only (another name gets 404)."""
    server = FakeOpenAIServer(models=["fake-model", "big-model"]).start()
    try:
        yield server
    finally:
        server.stop()


async def test_model_lists_switches_and_refuses_unknown_names(two_models, tmp_path) -> None:
    session = new_session(two_models, tmp_path)
    session.submit("/model")
    [page] = [e for e in await read_until_handled(session) if isinstance(e, se.ShowPage)]
    assert "Current model: **fake-model**" in page.markdown
    assert "- `big-model`" in page.markdown and "- `fake-model` (current)" in page.markdown

    session.submit("/model tiny-model")
    [error] = [e for e in await read_until_handled(session) if isinstance(e, ev.ErrorReport)]
    assert "does not offer a model named 'tiny-model'" in error.message
    assert "big-model, fake-model" in error.message

    two_models.add_text("Hello from the first model.")
    session.submit("hi")
    await read_until_handled(session)
    session.submit("/model big-model")
    events = await read_until_handled(session)
    assert se.ModelSwitched("big-model") in events
    assert any(
        "Switched from fake-model to big-model" in e.text
        for e in events
        if isinstance(e, ev.Notice)
    )
    two_models.add_text("Hello from the big one.")
    session.submit("and now?")
    await read_until_handled(session)
    models = [r.body["model"] for r in two_models.chat_requests()]
    assert models == ["fake-model", "big-model"]
    assert session.assistant.model_name == "big-model"
    await session.close()


async def test_model_switches_even_when_the_server_cannot_list(fake_llm, tmp_path) -> None:
    session = new_session(fake_llm, tmp_path, "llm.base_url=http://127.0.0.1:9/v1")
    session.submit("/model other")
    events = await read_until_handled(session)
    [notice] = [e for e in events if isinstance(e, ev.Notice)]
    assert "Switched from fake-model to other" in notice.text
    assert "did not list its models" in notice.text
    await session.close()
