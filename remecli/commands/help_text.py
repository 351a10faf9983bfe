"""The /help page, built from the command registry (shared by every front-end)."""

from __future__ import annotations

from collections.abc import Sequence

from remecli.commands.registry import COMMANDS

MEMORY_LAYOUT = (
    "`MEMORY.md`: durable facts, preferences and decisions (its head is in every prompt)",
    "`memory/YYYY-MM-DD/<slug>.md`: topic cards, one per conversation and day, "
    "written after it ends (name, description, tags, a link to the transcript lines)",
    "`memory/YYYY-MM-DD.md`: the day page, an index of that day's cards (your own lines "
    "outside its generated block are kept)",
    "`digest/personal/`, `digest/procedure/`, `digest/wiki/`: the digest, what dreaming "
    "(`/dream`) consolidated from the cards; each node cites its cards with `[[wikilinks]]`",
    "`resource/`: files you drop here become cards linked to their source (`/prune` removes "
    "the cards of deleted files)",
    "`sessions/`: conversations (`/resume`, `remecli sessions`, `remecli resume=<id>`); "
    "`tool_result/`: tool outputs too long for the context",
)
USING_MEMORY = (
    'Ask in plain words ("what did we decide about the deploy?"): the assistant searches '
    "(`memory_search`), follows the links between notes (`memory_links`), then reads the notes "
    'it found. From a shell: `remecli search "…"`, `remecli links <note>`.',
)


def _cell(text: str) -> str:
    """`text` safe inside a Markdown table cell (a `|` would start a new column)."""
    return text.replace("|", "\\|")


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
        usage = _cell(command.usage or f"/{command.name}")
        waits = "yes" if command.waits else "no"
        lines.append(f"| `{usage}` | {_cell(command.summary)} | {waits} |")
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
    lines += ["", "## Where things are", "", f"Memory folder: `{working_dir}` (plain Markdown)", ""]
    lines += [f"- {line}" for line in MEMORY_LAYOUT]
    lines += ["", *USING_MEMORY, ""]
    lines += [
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
