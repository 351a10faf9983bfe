"""Build a real agentscope Agent with the ContextMiddleware against the fake LLM server."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from remecli.config.settings import LLMSettings, MemorySettings, Settings
from remecli.conversation.prompts import sections

CHECKPOINT = "\n\n".join(f"{h}\n- {tag}" for h, tag in zip(sections(""), "ABCDEF", strict=True))


def checkpoint(tag: str) -> str:
    """A well-formed checkpoint whose every section mentions `tag`."""
    return "\n\n".join(f"{h}\n- {tag} {i}" for i, h in enumerate(sections("")))


def is_compaction(body: dict[str, Any]) -> bool:
    """True for a compaction request (its system prompt is the compactor's)."""
    first = body["messages"][0]
    text = first["content"] if isinstance(first["content"], str) else str(first["content"])
    return "context checkpoint" in text or "上下文检查点" in text


def make_settings(fake_llm, tmp_path: Path, **overrides: Any) -> Settings:
    """Small window settings pointing at the fake server (`max_retries` for the LLM too)."""
    memory = MemorySettings(
        keep_recent_tokens=overrides.pop("keep_recent_tokens", 200),
        tool_result_threshold=overrides.pop("tool_result_threshold", 1000),
        retention_days=overrides.pop("retention_days", 7),
    )
    return Settings(
        working_dir=str(tmp_path / ".reme"),
        max_input_length=overrides.pop("max_input_length", 6000),
        memory_compact_ratio=overrides.pop("memory_compact_ratio", 0.2),
        llm=LLMSettings(
            base_url=fake_llm.base_url,
            api_key="sk-test",
            model_name="fake-model",
            max_retries=overrides.pop("max_retries", 3),
        ),
        memory=memory,
        **overrides,
    )


def text_tool(name: str, produce: Callable[[dict], str]):
    """An agentscope FunctionTool named `name` returning `produce(kwargs)` as its text."""
    from agentscope.message import TextBlock
    from agentscope.tool import FunctionTool, ToolChunk

    async def tool(path: str = "") -> ToolChunk:
        """Return text for a path.

        Args:
            path: a path
        """
        return ToolChunk(content=[TextBlock(text=produce({"path": path}))])

    tool.__name__ = name
    return FunctionTool(tool, name=name, is_read_only=True)


@dataclass
class Rig:
    """An agent, its middleware, the notices it sent and the messages handed to memory."""

    agent: Any
    mw: Any
    notices: list = field(default_factory=list)
    compacted: list = field(default_factory=list)

    async def ask(self, text: str) -> list:
        from agentscope.message import UserMsg

        return [e async for e in self.agent.reply_stream(UserMsg(name="user", content=text))]


@pytest.fixture
def rig_factory(fake_llm, tmp_path):
    """Build a Rig: `rig_factory(tools=[...], state=None, **settings overrides)`."""

    def build(
        tools: list | None = None,
        state: Any = None,
        settings: Settings | None = None,
        mw: Any = None,
        **overrides: Any,
    ) -> Rig:
        from agentscope.agent import Agent
        from agentscope.tool import Toolkit

        from remecli.agent.context_middleware import ContextMiddleware, agent_kwargs
        from remecli.llm.agentscope_middleware import runtime_middlewares
        from remecli.llm.agentscope_state import agent_state
        from remecli.llm.model import build_chat_model

        settings = settings or make_settings(fake_llm, tmp_path, **overrides)
        notices: list = []
        compacted: list = []
        if mw is None:
            mw = ContextMiddleware(
                settings,
                on_notice=notices.append,
                on_compacted=lambda msgs: compacted.append(msgs),
            )
        else:
            mw.on_notice, mw.on_compacted = notices.append, compacted.append
        agent = Agent(
            name="ReMe",
            system_prompt="You are a test assistant.",
            model=build_chat_model(
                settings.llm, context_size=settings.max_input_length
            ).agent_model(),
            toolkit=Toolkit(tools=tools or []),
            middlewares=runtime_middlewares([mw]),
            state=None if state is None else agent_state(state),  # a restored conversation
            **agent_kwargs(),
        )
        return Rig(agent, mw, notices, compacted)

    return build


def words(count: int, seed: int = 0) -> str:
    """`count` distinct-ish words (about 2 tokens each): text that does not compress to nothing."""
    return " ".join(f"w{seed}x{i}" for i in range(count))


class Script:
    """Answers the fake server's chat requests: compaction requests get `summaries(body, n)`;
    agent requests get the next of `steps` (turn objects or str). Everything is recorded."""

    def __init__(self, fake_llm, steps: list | None = None, summaries=None) -> None:
        self.steps = list(steps or [])
        self.summaries = summaries or (lambda body, n: checkpoint(f"gen{n}"))
        self.compactions: list[dict] = []
        self.agent_calls: list[dict] = []
        fake_llm.set_fallback(self._answer)

    def add(self, *steps: Any) -> None:
        self.steps.extend(steps)

    def _answer(self, body: dict) -> Any:
        if is_compaction(body):
            self.compactions.append(body)
            return self.summaries(body, len(self.compactions))
        self.agent_calls.append(body)
        if not self.steps:
            return "(no more steps)"
        return self.steps.pop(0)


def tool_calls(*specs: tuple) -> Any:
    """A fake-server turn making tool calls `(name, args[, id])`."""
    from tests.fakes.turns import ToolCallsTurn, make_tool_calls

    return ToolCallsTurn(calls=make_tool_calls(list(specs)))


def request_text(body: dict) -> str:
    """All text of a request's messages, joined by newlines (to look for summaries, markers)."""
    parts: list[str] = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
        for call in message.get("tool_calls") or []:
            parts.append(call["function"]["arguments"])
    return "\n".join(parts)
