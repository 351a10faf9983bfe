"""The settings a conversation runs with, recorded in its state file so `resume=<id>` (and
`resume=last`) answers with the same model at the same endpoint: `llm.*` (never the key: no
secret is recorded) and the window. On a resume the recorded values apply unless the resume's
own command line sets them (`key=value` still wins); environment and YAML do not override a
recorded value — the conversation was held with it."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

from remecli.config.settings import Settings

log = logging.getLogger(__name__)

# what is recorded: the endpoint and how it is called, never llm.api_key
RECORDED = (
    "llm.base_url",
    "llm.model_name",
    "llm.temperature",
    "llm.timeout",
    "llm.max_retries",
    "llm.supports_images",
    "llm.text_tool_calls",
    "llm.price_per_mtok_in",
    "llm.price_per_mtok_out",
    "max_input_length",
)
STATE_KEY = "settings"  # the state file's field


def recorded_settings(settings: Settings) -> dict[str, object]:
    """The values of `RECORDED` in `settings`, by dotted key."""
    values: dict[str, object] = {}
    for dotted in RECORDED:
        node: object = settings
        for part in dotted.split("."):
            node = getattr(node, part)
        values[dotted] = node
    return values


def read_recorded(state_file: Path) -> dict[str, object]:
    """The settings recorded in a state file ({} when none, or unreadable)."""
    try:
        payload = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = payload.get(STATE_KEY) if isinstance(payload, dict) else None
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if k in RECORDED}


def with_resumed_settings(settings: Settings, setting_args: Sequence[str]) -> Settings:
    """`settings` with what the conversation named by `settings.resume` was held with; the
    keys set in `setting_args` (the command line's `key=value`) keep their values. Unchanged
    when there is no resume, no such conversation (its start says so) or nothing recorded."""
    if not settings.resume:
        return settings
    from remecli.conversation.persistence import find_session
    from remecli.notes.layout import WorkingDir

    layout = WorkingDir(Path(settings.working_dir))
    try:
        session_id = find_session(layout, settings.resume)
    except LookupError:
        return settings
    given = {arg.partition("=")[0].strip() for arg in setting_args}
    recorded = read_recorded(layout.state_file(session_id))
    changes = {k: v for k, v in recorded.items() if k not in given}
    try:
        return settings.with_changes(changes)
    except ValueError:  # a value this version no longer accepts: the current settings
        log.warning("the settings recorded with %s do not apply; using the current", session_id)
        return settings


def resumed_note(settings: Settings) -> str:
    """What a resumed conversation says first: which model it answers with, and where."""
    llm = settings.llm
    return (
        f"Resumed: this conversation answers with {llm.model_name} at {llm.base_url} (as "
        "recorded with it; llm.model_name=… or llm.base_url=… on the command line changes it)."
    )
