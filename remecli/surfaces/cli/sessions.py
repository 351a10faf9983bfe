"""`remecli sessions`: the saved conversations, most recent first."""

from __future__ import annotations

import json

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.conversation.session_list import SessionInfo, list_sessions


def print_sessions(settings: Settings, *, as_json: bool = False) -> int:
    """Print one line (or one JSON object) per saved conversation; returns the exit code."""
    folder = Locations.from_settings(settings).sessions_dir
    sessions = list_sessions(folder)
    if as_json:
        print(json.dumps([s.as_json() for s in sessions], ensure_ascii=False, indent=2))
        return 0
    if not sessions:
        print(f"No saved conversations in {folder}.")
        return 0
    conversations = [s for s in sessions if not s.one_shot]
    one_shots = [s for s in sessions if s.one_shot]
    print(f"{'id':<32}  {'started':<16}  {'last activity':<16}  {'msgs':>4}  first line")
    for info in conversations:
        _print_line(info, info.first_user_line or "(empty: never resumed by resume=last)")
    if one_shots:
        print("\nOne-shot answers (-p; never resumed by resume=last):")
        for info in one_shots:
            _print_line(info, info.first_user_line)
    print("Continue one with: remecli config=cli resume=<id>  (or resume=last, or /resume)")
    return 0


def _print_line(info: SessionInfo, first: str) -> None:
    print(
        f"{info.session_id:<32}  {_short(info.started)}  {_short(info.last_activity)}  "
        f"{info.messages:>4}  {first}"
    )


def _short(iso: str) -> str:
    return iso.replace("T", " ")[:16].ljust(16)
