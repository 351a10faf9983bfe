"""remecli's tools return `ToolOutput`; through the real agent loop and the scripted fake model,
the model still gets each result's text (images after it), the loop reports success or error,
and a tool that streams is shown piece by piece and kept whole."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

from remecli.config.settings import LLMSettings
from remecli.llm import agent_loop as le
from remecli.llm.agent_loop import build_agent_loop
from remecli.llm.message import Message, ToolOutput
from remecli.llm.model import build_chat_model
from remecli.llm.tool_spec import ToolSpec
from remecli.tools.bash import bash
from remecli.tools.read import read
from tests.fakes.fake_openai import FakeOpenAIServer
from tests.fakes.messages import tool_texts
from tests.tools.conftest import make_ctx
from tests.tools.test_ls_read import _png


async def count(n: int) -> AsyncIterator[ToolOutput]:
    """Count to n, one line at a time.

    Args:
        n: How far.
    """
    for i in range(1, n + 1):
        yield ToolOutput(f"{i}\n")


async def _run(fake_llm: FakeOpenAIServer, workspace: Path, calls: list[Any]) -> list[Any]:
    ctx = make_ctx(workspace)
    ctx.accepts_images = True
    tools = [
        ToolSpec.from_function(partial(read, ctx), read_only=True, allowed="test"),
        ToolSpec.from_function(partial(bash, ctx), allowed="test"),
        ToolSpec.from_function(count, read_only=True, allowed="test"),
    ]
    for call in calls:
        fake_llm.add_tool_calls([call])
    fake_llm.add_text("Done.")
    settings = LLMSettings(
        base_url=fake_llm.base_url, api_key="sk-test", model_name="fake", supports_images=True
    )
    loop = build_agent_loop(
        build_chat_model(settings),
        name="t",
        system_prompt="You use tools.",
        tools=tools,
        max_retries=0,
        max_iters=len(calls) + 2,
    )
    return [event async for event in loop.run([Message.user("go")])]


async def test_tool_outputs_reach_the_model_and_the_loop(
    fake_llm: FakeOpenAIServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    (workspace / "pic.png").write_bytes(_png(4, 3))
    calls = [
        ("read", {"path": "notes.txt"}),
        ("read", {"path": "notez.txt"}),
        ("bash", {"command": "echo one; echo two >&2; exit 3"}),
        ("count", {"n": 3}),
        ("read", {"path": "pic.png"}),
    ]
    events = await _run(fake_llm, workspace, calls)

    done = [e for e in events if isinstance(e, le.ToolCallFinished)]
    assert [(e.name, e.state) for e in done] == [
        ("read", "success"),
        ("read", "error"),
        ("bash", "error"),
        ("count", "success"),
        ("read", "success"),
    ]
    assert done[0].output == "     1\talpha\n     2\tbeta"
    assert done[1].output.startswith("File not found: ") and "notes.txt" in done[1].output
    assert done[2].output == "one\ntwo\n[Exit code: 3]"
    assert done[3].output == "1\n2\n3\n"
    assert done[4].output == f"{workspace / 'pic.png'}: PNG image, 4x3 pixels, 73 bytes."

    streamed = [e.text for e in events if isinstance(e, le.ToolOutputDelta)]
    assert streamed[3:6] == ["1\n", "2\n", "3\n"]  # each piece shown as it came

    requests = fake_llm.chat_requests()
    assert len(requests) == len(calls) + 1
    said = [tool_texts(request.body)[-1] for request in requests[1:]]  # what the model read
    assert said[:4] == [finished.output for finished in done[:4]]
    assert said[4].startswith(done[4].output + "\n<system-reminder>A(n) image file is returned")
    last = requests[-1].body["messages"]
    images = [
        part["image_url"]["url"]
        for message in last
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]
    picture = base64.b64encode((workspace / "pic.png").read_bytes()).decode()
    assert images == [f"data:image/png;base64,{picture}"]
