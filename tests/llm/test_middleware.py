"""remecli's own middleware interface (`remecli.llm.middleware`): a middleware written on it
runs in the real agent loop over the fake OpenAI server, and messages cross the seam to
agentscope and back without losing what remecli does not model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentscope.message import (
    Base64Source,
    DataBlock,
    HintBlock,
    Msg,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

from remecli.config.settings import LLMSettings
from remecli.llm.agent_loop import build_agent_loop, final_reply
from remecli.llm.agentscope_middleware import Origins
from remecli.llm.message import Message, Text, ToolCall
from remecli.llm.middleware import (
    CallModel,
    Decide,
    LoopState,
    Middleware,
    Permission,
    ReplyEnd,
    ToolUse,
)
from remecli.llm.model import build_chat_model
from remecli.llm.tool_spec import ToolSpec
from tests.fakes.fake_openai import FakeOpenAIServer
from tests.fakes.messages import content_text, tool_texts


class HouseRules(Middleware):
    """Adds a line to the prompt, a reminder before the last message, refuses `delete`."""

    def __init__(self) -> None:
        self.ends: list[ReplyEnd] = []
        self.steps = 0
        self.asked: list[ToolUse] = []

    async def system_prompt(self, loop: LoopState, prompt: str) -> str:
        return f"{prompt}\nAlways answer in haiku."

    async def before_step(self, loop: LoopState) -> None:
        self.steps += 1

    async def model_call(self, loop: LoopState, messages: list[Message], call: CallModel) -> object:
        reminder = Message.user("(reminder: be brief)")
        return await call([*messages[:-1], reminder, messages[-1]])

    async def check_permission(self, loop: LoopState, use: ToolUse, decide: Decide) -> Permission:
        self.asked.append(use)
        if use.name == "delete":
            return Permission("deny", f"House rules: {use.arguments['path']} stays.")
        return await decide()

    async def reply_ended(self, loop: LoopState, end: ReplyEnd) -> None:
        self.ends.append(end)


async def test_a_middleware_on_our_interface_runs_in_the_agent_loop(
    fake_llm: FakeOpenAIServer,
) -> None:
    deleted: list[str] = []

    def delete(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        deleted.append(path)
        return "deleted"

    fake_llm.add_tool_calls([("delete", {"path": "notes.md"})])
    fake_llm.add_text("Kept it.")
    rules = HouseRules()
    settings = LLMSettings(base_url=fake_llm.base_url, api_key="sk-test", model_name="fake")
    loop = build_agent_loop(
        build_chat_model(settings),
        name="t",
        system_prompt="You tidy up.",
        tools=[ToolSpec.from_function(delete, allowed="the rules decide")],
        max_retries=0,
        max_iters=5,
        before_retry=[rules],
    )
    done = await final_reply(loop.run([Message.user("Delete notes.md")]))
    assert done.message.text == "Kept it." and deleted == []
    first, second = (request.body["messages"] for request in fake_llm.chat_requests())
    assert first[0] == {"role": "system", "content": "You tidy up.\nAlways answer in haiku."}
    assert [content_text(m) for m in first[1:]] == ["(reminder: be brief)", "Delete notes.md"]
    assert tool_texts({"messages": second}) == ["House rules: notes.md stays."]
    assert [(use.name, dict(use.arguments)) for use in rules.asked] == [
        ("delete", {"path": "notes.md"})
    ]
    assert rules.steps == 2  # before each reasoning step
    assert [(end.reason, end.stopped, end.finished) for end in rules.ends] == [
        ("completed", False, True)
    ]
    user_ids = {m.id for m in loop.state.context() if m.role == "user"}
    assert rules.ends[0].input_ids == frozenset(user_ids)


def _reply_with_an_image_and_a_hint() -> Msg:
    image = DataBlock(source=Base64Source(data="aGk=", media_type="image/png"), name="p.png")
    return Msg(
        name="ReMe",
        role="assistant",
        content=[
            TextBlock(text="Looking."),
            HintBlock(hint="<system-reminder>tool errors repeat</system-reminder>"),
            ToolCallBlock(id="c1", name="read", input='{"path": "p.png"'),
            ToolResultBlock(id="c1", name="read", output=[TextBlock(text="an image"), image]),
        ],
    )


def test_a_message_passed_on_unchanged_is_sent_as_the_very_msg_it_came_from() -> None:
    origins = Origins()
    msg = _reply_with_an_image_and_a_hint()
    [message] = origins.convert([msg])
    assert origins.back([message]) == [msg] and origins.back([message])[0] is msg


def test_a_changed_message_keeps_the_blocks_it_did_not_change() -> None:
    origins = Origins()
    msg = _reply_with_an_image_and_a_hint()
    [message] = origins.convert([msg])
    parts: list[Any] = [
        replace(part, arguments='{"path": "p.png"}') if isinstance(part, ToolCall) else part
        for part in message.parts
    ]
    [back] = origins.back([replace(message, parts=(*parts, Text("[interrupted]")))])
    assert back is not msg and back.id == msg.id and len(msg.content) == 4  # a copy
    assert [block.type for block in back.content] == [
        "text",
        "hint",
        "tool_call",
        "tool_result",
        "text",
    ]
    assert back.content[0] is msg.content[0] and back.content[1] is msg.content[1]
    assert back.content[3] is msg.content[3]  # the image in the tool result stays
    assert back.content[2].input == '{"path": "p.png"}'
    assert back.content[4].text == "[interrupted]"


def test_a_new_message_is_converted() -> None:
    [back] = Origins().back([Message("assistant", (Text("[interrupted: no reply]"),))])
    assert (back.role, back.get_text_content()) == ("assistant", "[interrupted: no reply]")
