"""The core facade every front-end drives: `send(text)` yields core events.

It owns the agentscope `Agent` (built lazily in `start()`, so a UI can paint before the ~1 s
import), the tool registry, the middlewares and the error policy. Nothing here knows about
Textual; the TUI, the plain REPL and one-shot mode are three consumers of the same events.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from remecli.agent import events as ev
from remecli.config.settings import Settings

log = logging.getLogger(__name__)

OPENAI_DEFAULT_URL = "https://api.openai.com/v1"
AskFn = Callable[[Any], Awaitable[str]]


def missing_key_message(settings: Settings) -> str | None:
    """Why the LLM cannot be called as configured, or None if it can be tried."""
    llm = settings.llm
    if not llm.api_key and llm.base_url.rstrip("/") == OPENAI_DEFAULT_URL:
        return (
            "No API key configured. Set REME_LLM_API_KEY (or put it in .env), or pass "
            "llm.api_key=…; for a local OpenAI-compatible server pass llm.base_url=http://…/v1."
        )
    return None


class Assistant:
    """One conversation with the ReAct agent, its tools and its memory."""

    def __init__(self, settings: Settings, *, cwd: Path | None = None, ask: AskFn | None = None) -> None:
        self.settings = settings
        self.cwd = (cwd or Path.cwd()).resolve()
        self.working_dir = (self.cwd / Path(settings.working_dir).expanduser()).resolve()
        workspace = settings.tools.workspace
        self.workspace = (self.cwd / Path(workspace).expanduser()).resolve() if workspace else self.cwd
        self.ask = ask
        self.agent: Any = None
        self.tool_names: list[tuple[str, str]] = []

    @property
    def model_name(self) -> str:
        """The configured chat model's name."""
        return self.settings.llm.model_name

    @property
    def ready(self) -> bool:
        """True once `start()` has built the agent."""
        return self.agent is not None

    async def start(self) -> None:
        """Import agentscope and build model, tools, middlewares and agent (idempotent)."""
        if self.agent is not None:
            return
        from agentscope.agent import Agent, ContextConfig, InjectionConfig

        from remecli.agent.system_prompt import build_system_prompt, memory_head
        from remecli.llm.model import build_chat_model
        from remecli.llm.retry import RetryMiddleware
        from remecli.tools.approval import ApprovalMiddleware
        from remecli.tools.context import ToolContext
        from remecli.tools.registry import build_toolkit, build_tools, describe_tools

        self.working_dir.mkdir(parents=True, exist_ok=True)
        ctx = ToolContext(workspace=self.workspace, working_dir=self.working_dir, settings=self.settings.tools)
        tools = build_tools(ctx)
        self.tool_names = describe_tools(tools)
        prompt = build_system_prompt(
            language=self.settings.language,
            workspace=self.workspace,
            working_dir=self.working_dir,
            tools=self.tool_names,
            memory=memory_head(self.working_dir / "MEMORY.md", self.settings.memory.memory_md_head_lines),
        )
        middlewares = [
            RetryMiddleware(self.settings.llm.max_retries),
            ApprovalMiddleware(self.settings.tools.approval, ctx, self._ask),
        ]
        self.agent = Agent(
            name="ReMe",
            system_prompt=prompt,
            model=build_chat_model(self.settings.llm, context_size=self.settings.max_input_length),
            toolkit=build_toolkit(tools),
            middlewares=middlewares,
            context_config=ContextConfig(tool_result_limit=10**9),
            injection_config=InjectionConfig(inject_runtime_state=False),
        )

    async def _ask(self, request: Any) -> str:
        if self.ask is None:
            return "no"
        return await self.ask(request)

    async def send(self, text: str) -> AsyncIterator[ev.CoreEvent]:
        """Send one user message and stream the reply as core events.

        Errors never escape: they become one `ErrorReport` and the context is repaired so the
        next message works. Cancelling the consuming task interrupts the reply cleanly.
        """
        problem = missing_key_message(self.settings)
        if problem:
            yield ev.ErrorReport(problem, kind="config")
            return
        await self.start()
        from agentscope.message import UserMsg

        from remecli.agent.context_repair import repair_after_error
        from remecli.agent.translate import EventTranslator
        from remecli.llm.errors import classify

        msg = UserMsg(name="user", content=text)
        translator = EventTranslator()
        try:
            async for item in self.agent.reply_stream(msg):
                for core_event in translator.translate(item):
                    yield core_event
        except Exception as exc:  # the provider's error: report, repair, stay usable
            log.exception("reply failed")
            error = classify(exc, self.settings.llm)
            dropped = repair_after_error(self.agent.state.context, msg.id)
            hint = " Your message was not answered; press ↑ to edit and resend it." if dropped else ""
            yield ev.ErrorReport(error.message + hint, kind=error.kind)

    # ------------------------------------------------------------ conversation
    def context_usage(self) -> ev.ContextUsage:
        """Tokens the next request would carry, against the window."""
        from remecli.agent.message_text import message_text
        from remecli.llm.tokens import get_token_counter

        counter = get_token_counter(self.settings.memory.token_encoding)
        state = self.agent.state
        tokens = counter.count(str(state.summary or "")) + sum(counter.count(message_text(m)) for m in state.context)
        return ev.ContextUsage(tokens, self.settings.max_input_length)

    def history_markdown(self) -> str:
        """The uncompressed messages with token statistics, for /history."""
        from remecli.agent.message_text import message_text

        if not self.ready or not self.agent.state.context:
            return "_No messages yet._"
        parts = [f"**{m.role}**\n\n{message_text(m)}" for m in self.agent.state.context]
        return "\n\n---\n\n".join(parts)

    async def close(self) -> None:
        """Finish pending work before exit."""
