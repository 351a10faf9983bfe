"""The current project: the name recorded on what is written to the memory (`project:` on
cards, a `project` field on transcript records) and what search prefers and filters by.

- A project memory (`<folder>/.reme`): the name of `<folder>`.
- Any other memory (the memory home, or one named with `working_dir=`): the name of the top
  folder of the git work tree remecli started in (none outside a git work tree).
- `project=NAME` / `$REME_PROJECT` name it explicitly (`project=` with nothing turns it off).

`project_of` owns the rule; the loader calls it once and stores the name in the settings, so
everything below reads `settings.project` ("" = no project).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from remecli.config.locations import PROJECT_FOLDER, find_project_memory, git_work_tree


@dataclass(frozen=True)
class ProjectChoice:
    """The current project's name ("" for none) and why, in words for `remecli where`."""

    name: str
    reason: str


def project_of(memory_root: Path, cwd: Path) -> ProjectChoice:
    """The current project of a process using the memory at `memory_root`, started in `cwd`."""
    root = Path(memory_root)
    if root.name == PROJECT_FOLDER:
        return ProjectChoice(root.parent.name, f"the folder holding the project memory {root}")
    tree = git_work_tree(cwd)
    if tree is not None and tree.name:
        return ProjectChoice(tree.name, f"the top folder of the git work tree {tree}")
    return ProjectChoice("", f"no project memory and no git work tree at {cwd.resolve()}")


def project_of_folder(folder: Path) -> str:
    """The project a conversation held in `folder` belongs to (an imported session's cwd): the
    folder holding the nearest `.reme`, else the top of its git work tree; "" for neither (or
    a folder that does not exist here)."""
    try:
        if not folder.is_dir():
            return ""
        memory = find_project_memory(folder)
        if memory is not None:
            return memory.parent.name
        tree = git_work_tree(folder)
    except OSError:
        return ""
    return tree.name if tree is not None else ""
