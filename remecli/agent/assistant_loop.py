"""The assistant's agent loop, built on a started memory runtime by the one factory,
`remecli.llm.agent_loop.build_agent_loop`: its tools, its middlewares (context, live prompt,
well-formed requests, approval) and, for `resume=`, the saved conversation it goes on from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from remecli.agent import events as ev
from remecli.conversation.started_with import resumed_note

if TYPE_CHECKING:
    from remecli.agent.assistant import Assistant
    from remecli.conversation.file_memory import FileMemory


async def build_assistant_agent(assistant: Assistant, memory: FileMemory) -> None:
    """The `assistant`'s agent loop on a started memory runtime; `assistant.agent` is set
    last (set means ready)."""
    from remecli.agent.context_middleware import ContextMiddleware
    from remecli.agent.context_repair import WellFormedRequests
    from remecli.agent.live_prompt import LivePrompt
    from remecli.llm.agent_loop import build_agent_loop
    from remecli.llm.model import build_chat_model
    from remecli.tools.approval import ApprovalMiddleware
    from remecli.tools.context import ToolContext
    from remecli.tools.registry import build_tools, describe_tools

    context = ContextMiddleware(memory=memory)
    state = None
    if assistant.settings.resume:
        state = await memory.conversation.restore(assistant.settings.resume)
        if memory.conversation.restore_problem:
            assistant.notices.put(ev.Notice(memory.conversation.restore_problem, "warning"))
        assistant.notices.put(ev.Notice(resumed_note(assistant.settings), "memory"))  # which model
    assistant.memory = memory
    ctx = ToolContext(
        workspace=assistant.workspace,
        working_dir=assistant.working_dir,
        settings=assistant.settings.tools,
        accepts_images=assistant.settings.llm.supports_images,
        writer=memory.writer,  # edit/write on memory files: the runtime's one writer
        checkpoints=assistant.checkpoints,
    )
    assistant.tool_context = ctx  # @file mentions are read with the tools' own limits
    tools = build_tools(ctx, memory=memory)
    assistant.tool_names = describe_tools(tools)
    live_prompt = LivePrompt(assistant.render_prompt, memory.layout.memory_md)
    assistant.approval = ApprovalMiddleware(assistant.settings.tools.approval, ctx, assistant.ask)
    loop = build_agent_loop(
        build_chat_model(assistant.settings.llm, context_size=assistant.settings.max_input_length),
        name="ReMe",
        system_prompt=live_prompt.current(),
        tools=tools,
        max_retries=assistant.settings.llm.max_retries,
        before_retry=[
            context,  # outermost: its overflow retry goes through the retry middleware
            live_prompt,  # MEMORY.md and the time, refreshed at the start of a reply
            WellFormedRequests(),
        ],
        after_retry=[assistant.approval],
        state=state,
    )
    agent = loop.agent
    context.attach(loop.state)
    await context.measure_overhead()  # the meter counts the prompt and tools from the start
    assistant.context = context
    assistant.loop = loop
    assistant.agent = agent
