"""A state file whose agent-state part has the wrong shape never blocks a start (issue 15.8):
without resume the agent starts; with resume=<id> the context is rebuilt from the transcript,
and the user is told so."""

from __future__ import annotations

import json

import pytest

from remecli.agent import events as ev
from tests.agent.conftest import collect


@pytest.mark.parametrize("broken", ["oops", ["a", "list"], {"context": "not a list"}])
async def test_wrong_shaped_agent_state_is_rebuilt_from_the_transcript(
    assistant_factory, fake_llm, tmp_path, broken
) -> None:
    first = assistant_factory()
    fake_llm.add_text("noted: the build server is bx-9")
    await collect(first, "remember: the build server is bx-9")
    session_id = first.agent.state.session_id
    await first.close()
    state_file = tmp_path / ".reme" / "sessions" / f"{session_id}.state.json"
    payload = json.loads(state_file.read_text())
    payload["agent_state"] = broken
    state_file.write_text(json.dumps(payload))

    fresh = assistant_factory()
    fake_llm.add_text("hello again")
    events = await collect(fresh, "hi")
    assert not [e for e in events if isinstance(e, ev.ErrorReport)], events
    await fresh.close()

    resumed = assistant_factory(f"resume={session_id}")
    fake_llm.add_text("it is bx-9")
    events = await collect(resumed, "which build server?")
    assert not [e for e in events if isinstance(e, ev.ErrorReport)], events
    warnings = [e for e in events if isinstance(e, ev.Notice) and e.kind == "warning"]
    assert any("rebuilt from the transcript" in w.text for w in warnings), events
    sent = json.dumps(fake_llm.chat_requests()[-1].body["messages"])
    assert "bx-9" in sent  # the earlier exchange came back from the transcript
    await resumed.close()
