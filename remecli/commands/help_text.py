"""The /help page, built from the command registry (shared by every front-end)."""

from __future__ import annotations

from collections.abc import Sequence

from remecli.commands.registry import COMMANDS


def help_markdown(
    *,
    working_dir: str,
    workspace: str,
    config_hint: str,
    keys: Sequence[tuple[str, str]] = (),
    tavily_enabled: bool = True,
    log_file: str = "",
) -> str:
    """Markdown for /help: commands, key bindings, where config and memory live."""
    lines = [
        "# remecli help",
        "",
        "## Commands",
        "",
        "| command | what it does | waits |",
        "|---|---|---|",
    ]
    for command in COMMANDS.values():
        usage = command.usage or f"/{command.name}"
        lines.append(f"| `{usage}` | {command.summary} | {'yes' if command.waits else 'no'} |")
    lines += [
        "",
        "| command | compact summary | long-term memory | message history |",
        "|---|---|---|---|",
        "| `/compact` | new summary | saved | keep recent |",
        "| `/new` | cleared | saved | cleared |",
        "| `/clear` | cleared | **not saved** | cleared (transcript deleted) |",
    ]
    if keys:
        lines += ["", "## Keys", "", "| key | action |", "|---|---|"]
        lines += [f"| `{key}` | {action} |" for key, action in keys]
    lines += [
        "",
        "## Where things are",
        "",
        f"- Memory folder: `{working_dir}` — `MEMORY.md` (durable facts), `memory/YYYY-MM-DD.md` "
        "(daily summaries), `sessions/` (transcripts), `tool_result/` (large tool outputs)",
        f"- Workspace (file and shell tools act here): `{workspace}`",
        f"- Configuration: {config_hint}",
    ]
    if log_file:
        lines.append(f"- Log file: `{log_file}`")
    if not tavily_enabled:
        lines.append(
            "- Web search is off: set `TAVILY_API_KEY` (or `tools.tavily_api_key=…`) to enable it."
        )
    return "\n".join(lines) + "\n"
