"""`/model [name]`: switch the chat model for the rest of the conversation, or list them.

The list comes from the server's `/v1/models` when it answers. A name the server does not list
is refused (saying which it offers); when the server cannot list, the switch is made and the
next reply shows whether the name works.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.frontend import CommandContext

Events = AsyncIterator[se.SessionEvent]

SUMMARY = "Switch the chat model for the rest of the conversation (/model alone lists them)"


async def _offered(ctx: CommandContext) -> tuple[list[str], str]:
    """The server's models, or ([], why it did not say)."""
    from remecli.llm.model_list import list_models

    try:
        return await list_models(ctx.assistant.settings.llm), ""
    except Exception as exc:  # any failure of an optional listing: say it, go on
        return [], f"{type(exc).__name__}: {exc}"


def models_page(current: str, offered: list[str], problem: str) -> str:
    """The /model page: the current model and what the server offers."""
    lines = [f"Current model: **{current}**", ""]
    if offered:
        lines += ["The server offers:", ""]
        lines += [f"- `{name}`{' (current)' if name == current else ''}" for name in offered]
        lines += ["", "Switch with `/model NAME` (for the rest of this conversation)."]
    else:
        lines.append(f"The server did not list its models ({problem}).")
        lines.append("Switch with `/model NAME` using a name the server knows.")
    return "\n".join(lines)


async def switch_model(ctx: CommandContext) -> Events:
    """/model [name]"""
    assistant = ctx.assistant
    current = assistant.model_name
    wanted = ctx.arg.strip()
    offered, problem = await _offered(ctx)
    if not wanted:
        yield se.ShowPage("models", models_page(current, offered, problem))
        return
    if offered and wanted not in offered:
        near = ", ".join(offered[:20])
        yield ev.ErrorReport(
            f"The server does not offer a model named {wanted!r}; it offers: {near}. "
            f"Type /model to see the list.",
            kind="command",
        )
        return
    if wanted == current:
        yield ev.Notice(f"Already answering with {current}.")
        return
    assistant.switch_model(wanted)
    if ctx.session is not None:  # /new and /resume keep the choice
        ctx.session.settings = ctx.session.settings.with_changes({"llm.model_name": wanted})
    unchecked = "" if offered else " (the server did not list its models to check the name)"
    yield se.ModelSwitched(wanted)
    yield ev.Notice(f"Switched from {current} to {wanted} for this conversation{unchecked}.")
