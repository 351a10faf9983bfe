"""`remecli where` (which memory is in use, and why) and `remecli init` (make a project memory).

A `.reme/` folder in the current folder or a parent is a project memory; otherwise remecli uses
the memory home (`$XDG_DATA_HOME/remecli`, else `~/.local/share/remecli`); `working_dir=` or
`REME_WORKING_DIR` name one explicitly (see `remecli.config.locations.choose_memory`). It also
prints the current project (`remecli.config.project`): what is written is recorded under it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from remecli.surfaces.cli.base import SettingsCommand

if TYPE_CHECKING:
    from remecli.config.project import ProjectChoice


def _not_there(root: Path) -> str:
    """The `exists` line of a memory without MEMORY.md: made on first use, unless something
    that is not a folder is in the way."""
    if root.exists() and not root.is_dir():
        return "no: a file is there, not a folder; pick another working_dir=PATH"
    return "not yet (created on first use)"


@click.command(cls=SettingsCommand)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def where(as_json: bool, setting_args: list[str]) -> int:
    """Which memory is in use here, and why.

    \b
    remecli where
    remecli where --json
    remecli where working_dir=~/notes/.reme
    remecli where project=shop
    """
    from remecli.config.errors import ConfigError
    from remecli.config.loader import load_settings_and_memory
    from remecli.config.locations import PROJECT_FOLDER, git_work_tree, ignored_by_git
    from remecli.config.project import project_of

    try:
        settings, choice = load_settings_and_memory(setting_args)
    except ConfigError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 2
    exists = (choice.root / "MEMORY.md").is_file()
    info: dict[str, object] = {
        "memory": str(choice.root),
        "kind": choice.kind,
        "why": choice.reason,
        "exists": exists,
        "project": settings.project or None,
        "project_why": _project_reason(settings.project, project_of(choice.root, Path.cwd())),
    }
    if choice.root.name == PROJECT_FOLDER and git_work_tree(choice.root.parent) is not None:
        info["ignored_by_git"] = ignored_by_git(choice.root)
    if as_json:
        print(json.dumps(info, indent=2))
        return 0
    kinds = {"project": "project memory", "home": "memory home", "set": "named explicitly"}
    print(f"memory  {choice.root}")
    print(f"kind    {kinds[choice.kind]}")
    print(f"why     {choice.reason}")
    print(f"exists  {'yes' if exists else _not_there(choice.root)}")
    print(f"project {settings.project or '(none)'}  ({info['project_why']})")
    if "ignored_by_git" in info:
        gitignore = choice.root.parent / ".gitignore"
        print(
            f"git     ignored ({gitignore})"
            if info["ignored_by_git"]
            else f"git     NOT ignored: add {PROJECT_FOLDER}/ to {gitignore}"
        )
    return 0


def _project_reason(current: str, derived: ProjectChoice) -> str:
    """Why `current` is the project: derived from where remecli runs, or named explicitly."""
    if current == derived.name:
        return derived.reason
    return "set by project= or $REME_PROJECT" if current else "turned off by project="


@click.command(cls=SettingsCommand)
@click.argument(
    "folder", required=False, type=click.Path(file_okay=False, path_type=Path), default=None
)
def init(folder: Path | None, setting_args: list[str]) -> int:
    """Make a project memory: FOLDER/.reme (default: the current folder).

    remecli then uses it in FOLDER and every folder below it. In a git work tree, .reme/ is
    added to FOLDER/.gitignore (it holds conversations).

    \b
    remecli init
    remecli init ~/code/myproject
    """
    from remecli.config.locations import (
        PROJECT_FOLDER,
        Locations,
        find_project_memory,
        ignore_in_git,
    )

    if setting_args:
        print("remecli init: takes a FOLDER, no settings", file=sys.stderr)
        return 2
    base = (folder or Path.cwd()).expanduser().resolve()
    root = base / PROJECT_FOLDER
    if root.is_dir():
        print(f"a project memory already exists at {root}")
        return 0
    if root.exists():
        print(f"remecli init: {root} exists and is not a folder; move it away", file=sys.stderr)
        return 1
    outer = find_project_memory(base)
    try:
        base.mkdir(parents=True, exist_ok=True)
        note = ignore_in_git(root)
        Locations(root).ensure()
    except OSError as exc:
        print(f"remecli init: cannot create {root}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"created a project memory at {root}")
    if note:
        print(note)
    print(_replaced_memory(outer, base))
    if os.environ.get("REME_WORKING_DIR"):
        print(
            "note: REME_WORKING_DIR is set and wins over project memories; unset it to use this one"
        )
    return 0


def _replaced_memory(outer: Path | None, base: Path) -> str:
    """Which memory the new project memory takes the place of in `base` and below, and how to
    reach that one still (its conversations no longer show in `sessions` or `resume=last`)."""
    from remecli.config.locations import Locations, memory_home
    from remecli.surfaces.cli.sessions import saved_sessions

    other = outer if outer is not None else memory_home(os.environ)
    kind = "the project memory" if outer is not None else "the memory home"
    saved = [s for s in saved_sessions(Locations(other)) if not s.empty]
    many = len(saved) != 1
    kept = f" (its {len(saved)} saved conversation{'s stay' if many else ' stays'} there)"
    return (
        f"remecli now uses it in {base} and below instead of {kind} {other}"
        f"{kept if saved else ''}; to reach that one from here add working_dir={other}, e.g. "
        f"remecli sessions working_dir={other}"
    )
