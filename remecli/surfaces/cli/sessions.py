"""`remecli sessions`: the saved conversations, most recent first (one-shots among them,
marked); the empty ones only counted (`--json` lists them all)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.ops import JobRunner
from remecli.ops.session_list_job import SessionsParams, SessionSummary


@dataclass(frozen=True)
class Folder:
    """A memory's folders, all `memory_sessions` needs (no runtime is opened to list them)."""

    layout: Locations


def saved_sessions(layout: Locations) -> list[SessionSummary]:
    """The saved conversations of the memory at `layout`, most recent activity first."""
    runner = JobRunner.stand_in(Folder(layout))
    return asyncio.run(runner.call(SessionsParams())).sessions


def _as_json(info: SessionSummary) -> dict[str, object]:
    """`remecli sessions --json`: `one_shot` only on one-shots."""
    return info.model_dump(exclude={"empty"} if info.one_shot else {"empty", "one_shot"})


def print_sessions(settings: Settings, *, as_json: bool = False) -> int:
    """Print one line (or one JSON object) per saved conversation; returns the exit code."""
    layout = Locations.from_settings(settings)
    folder = layout.sessions_dir
    sessions = saved_sessions(layout)
    if as_json:
        print(json.dumps([_as_json(s) for s in sessions], ensure_ascii=False, indent=2))
        return 0
    elsewhere = _home_elsewhere(folder.parent)
    if not sessions:
        print(f"No saved conversations in {folder}.{elsewhere}")
        return 0
    shown = [s for s in sessions if not s.empty]  # in time order, one-shots among them
    empty = len(sessions) - len(shown)
    if shown:
        print(f"{'id':<32}  {'started':<16}  {'last activity':<16}  {'msgs':>4}  first line")
    for info in shown:
        _print_line(info, ("(-p) " if info.one_shot else "") + info.first_user_line)
    if empty:
        print(f"({empty} empty conversation{'s' * (empty != 1)} not listed: nothing was said)")
    if any(s.one_shot for s in shown):
        print("(-p): a one-shot answer; resume=last never picks it, resume=<id> does")
    if shown:
        print("Continue one with: remecli resume=<id>  (or resume=last, or /resume)")
    if elsewhere:
        print(elsewhere.strip())
    return 0


def _home_elsewhere(root: Path) -> str:
    """When `root` is a project memory: where the memory home's conversations are (they are
    not listed here) and how to list them; "" otherwise."""
    import os

    from remecli.config.locations import PROJECT_FOLDER, memory_home

    home = memory_home(os.environ)
    if root.name != PROJECT_FOLDER or not Locations(home).sessions_dir.is_dir():
        return ""
    return (
        f" (This is the project memory {root}; the memory home's conversations: "
        f"remecli sessions working_dir={home})"
    )


def _print_line(info: SessionSummary, first: str) -> None:
    print(
        f"{info.session_id:<32}  {_short(info.started)}  {_short(info.last_activity)}  "
        f"{info.messages:>4}  {first}"
    )


def _short(iso: str) -> str:
    return iso.replace("T", " ")[:16].ljust(16)
