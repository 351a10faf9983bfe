"""The one owner of locations: every path remecli reads or writes, resolved once.

Which memory: `choose_memory` finds it the way git finds a repository — a `.reme/` folder in the
current directory or a parent is a project memory; otherwise the user's memory home
(`$XDG_DATA_HOME/remecli`, else `~/.local/share/remecli`); `working_dir=` / `REME_WORKING_DIR`
name one explicitly. The loader calls it once and stores the absolute path in the settings.

`Locations.from_settings(settings, cwd)` resolves `working_dir` and `tools.workspace` against the
current directory exactly once, after the settings are loaded; every other module asks the
resulting object instead of joining paths of its own.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from remecli.config.privacy import private_dirs, tighten_derived, tighten_working_dir

if TYPE_CHECKING:
    from remecli.config.settings import Settings

_PACKAGE = Path(__file__).resolve().parent.parent
MEMORY_MD_HEADER = "# MEMORY\n\nLong-term memory: preferences, decisions and project facts.\n"
PROJECT_FOLDER = ".reme"  # a project memory: this folder in the project (found like `.git`)
HOME_FOLDER = "remecli"  # the memory home: this folder in the XDG data dir
GITIGNORE_LINE = f"{PROJECT_FOLDER}/"

log = logging.getLogger(__name__)


def bundled_dir(name: str) -> Path:
    """The packaged `config` or `themes` folder: inside the wheel, else at the checkout's top."""
    installed = _PACKAGE / "_bundled" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def resolve_against(cwd: Path, raw: str | Path) -> Path:
    """`raw` (`~` expanded) as an absolute path, relative paths taken from `cwd`."""
    return (cwd / Path(raw).expanduser()).resolve()


MemoryKind = Literal["project", "home", "set"]


@dataclass(frozen=True)
class MemoryChoice:
    """Which memory is in use (`root`) and why, in words for `remecli where`."""

    root: Path
    kind: MemoryKind  # project: a .reme found; home: the memory home; set: named explicitly
    reason: str


def memory_home(environ: Mapping[str, str]) -> Path:
    """The user's memory home: `$XDG_DATA_HOME/remecli`, else `~/.local/share/remecli`."""
    data_home = environ.get("XDG_DATA_HOME", "")
    if data_home and Path(data_home).is_absolute():  # the XDG spec ignores relative values
        return Path(data_home) / HOME_FOLDER
    home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    return home / ".local" / "share" / HOME_FOLDER


def rescue_dirs(environ: Mapping[str, str]) -> list[Path]:
    """Where a conversation goes at exit when its own disk is full, first that takes it:
    `$XDG_STATE_HOME/remecli/rescued` (else `~/.local/state/…`), then the temp folder."""
    import tempfile

    state_home = environ.get("XDG_STATE_HOME", "")
    home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    state = Path(state_home) if Path(state_home).is_absolute() else home / ".local" / "state"
    temp = Path(tempfile.gettempdir()) / f"remecli-{os.getuid()}-rescued"
    return [state / HOME_FOLDER / "rescued", temp]


def find_project_memory(cwd: Path) -> Path | None:
    """The nearest `.reme/` folder in `cwd` or one of its parents (None when there is none)."""
    here = cwd.resolve()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FOLDER
        if candidate.is_dir():
            return candidate
    return None


def choose_memory(
    cwd: Path, environ: Mapping[str, str], explicit: str | None = None, source: str = ""
) -> MemoryChoice:
    """The memory to use: `explicit` (a working_dir given by `source`), else the nearest
    project memory, else the memory home."""
    here = cwd.resolve()
    if explicit:
        return MemoryChoice(resolve_against(here, explicit), "set", f"set by {source}")
    project = find_project_memory(here)
    if project is not None:
        where = "the current folder" if project.parent == here else f"a parent, {project.parent}"
        return MemoryChoice(project, "project", f"found {PROJECT_FOLDER} in {where}")
    home = memory_home(environ)
    return MemoryChoice(
        home,
        "home",
        f"no {PROJECT_FOLDER} in {here} or its parents: the memory home "
        "($XDG_DATA_HOME/remecli, else ~/.local/share/remecli)",
    )


def memory_label(root: Path) -> str:
    """A short name of a memory for a header: `project <name>`, `home`, or the path."""
    root = Path(root)
    if root.name == PROJECT_FOLDER:
        return f"memory: project {root.parent.name or root.parent}"
    if root == memory_home(os.environ):
        return "memory: home"
    return f"memory: {root}"


def git_work_tree(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder` (a `.git` folder or file), else None."""
    here = folder.resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def ignored_by_git(root: Path) -> bool:
    """True when git ignores the folder `root` (asks git; reads `.gitignore` next to it
    when git cannot answer)."""
    import subprocess

    try:
        done = subprocess.run(
            ["git", "check-ignore", "-q", f"{root.name}/"],
            cwd=root.parent,
            capture_output=True,
            timeout=10,
        )
        if done.returncode in (0, 1):
            return done.returncode == 0
    except (OSError, subprocess.SubprocessError):
        pass
    gitignore = root.parent / ".gitignore"
    try:
        lines = gitignore.read_text(encoding="utf-8").splitlines() if gitignore.exists() else []
    except (OSError, UnicodeDecodeError):
        return False
    return root.name in {line.strip().strip("/") for line in lines}


def ignore_in_git(root: Path) -> str:
    """Add a project memory (`<folder>/.reme`) to `<folder>/.gitignore` when the folder is in a
    git work tree and git does not ignore it yet. Returns what was done ("" for nothing)."""
    if root.name != PROJECT_FOLDER or git_work_tree(root.parent) is None or ignored_by_git(root):
        return ""
    gitignore = root.parent / ".gitignore"
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        separator = "" if not text or text.endswith("\n") else "\n"
        with gitignore.open("a", encoding="utf-8") as out:
            out.write(f"{separator}{GITIGNORE_LINE}\n")
    except (OSError, UnicodeDecodeError) as exc:
        return f"could not add {GITIGNORE_LINE} to {gitignore}: {exc}"
    return f"added {GITIGNORE_LINE} to {gitignore} (the memory stays out of git)"


@dataclass(frozen=True)
class Locations:
    """Paths under the working dir (memory, sessions, index, logs, …) and the tools' workspace."""

    root: Path
    workspace_root: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).expanduser().resolve())
        if self.workspace_root is not None:
            object.__setattr__(self, "workspace_root", Path(self.workspace_root).resolve())

    @classmethod
    def from_settings(cls, settings: Settings, cwd: Path | None = None) -> Locations:
        """Resolve the working dir and the workspace (default: `cwd`) of `settings` once."""
        here = (cwd or Path.cwd()).resolve()
        workspace = settings.tools.workspace
        return cls(
            resolve_against(here, settings.working_dir),
            resolve_against(here, workspace) if workspace else here,
        )

    # ---------------------------------------------------------------- the tools' side
    @property
    def workspace(self) -> Path:
        """The folder the tools work in (the current directory unless `tools.workspace` is set)."""
        return self.workspace_root if self.workspace_root is not None else Path.cwd().resolve()

    # ---------------------------------------------------------------- memory (Markdown, canonical)
    @property
    def memory_md(self) -> Path:
        """Long-term memory file, always in the system prompt."""
        return self.root / "MEMORY.md"

    @property
    def memory_dir(self) -> Path:
        """Folder of the day pages `YYYY-MM-DD.md` (and their topic cards)."""
        return self.root / "memory"

    def daily_file(self, date: dt.date | None = None) -> Path:
        """The day page for `date` (today when omitted)."""
        day = date or dt.date.today()
        return self.memory_dir / f"{day:%Y-%m-%d}.md"

    @property
    def digest_dir(self) -> Path:
        """Consolidated knowledge (`personal/`, `procedure/`, `wiki/`)."""
        return self.root / "digest"

    @property
    def resource_dir(self) -> Path:
        """Files the user drops in to become source-linked cards (only read, never moved)."""
        return self.root / "resource"

    # ---------------------------------------------------------------- conversations
    @property
    def sessions_dir(self) -> Path:
        """Transcripts (`<id>.jsonl`) and saved states (`<id>.state.json`)."""
        return self.root / "sessions"

    def transcript_file(self, session_id: str) -> Path:
        """Append-only transcript of one conversation."""
        return self.sessions_dir / f"{session_id}.jsonl"

    def state_file(self, session_id: str) -> Path:
        """Saved session state of one conversation (for resume)."""
        return self.sessions_dir / f"{session_id}.state.json"

    def session_lock(self, session_id: str) -> Path:
        """The lock a live process holds on one conversation."""
        return self.sessions_dir / "locks" / f"{session_id}.lock"

    @property
    def pending_dir(self) -> Path:
        """Background summaries recorded before they run (retried after a crash)."""
        return self.sessions_dir / "pending"

    @property
    def tool_result_dir(self) -> Path:
        """Full outputs of offloaded tool results."""
        return self.root / "tool_result"

    @property
    def checkpoints_dir(self) -> Path:
        """Workspace files as they were before the agent changed them (/diff, /undo)."""
        return self.root / "checkpoints"

    # ---------------------------------------------------------------- derived and local state
    @property
    def index_dir(self) -> Path:
        """Derived search indexes (rebuildable, never the source of truth)."""
        return self.root / "index"

    @property
    def locks_dir(self) -> Path:
        """Cross-process locks on memory files and resources (derived state)."""
        return self.index_dir / "locks"

    @property
    def history_dir(self) -> Path:
        """Earlier versions of every memory file (`remecli memory history / restore`)."""
        return self.root / ".history"

    @property
    def dream_dir(self) -> Path:
        """Auto Dream's catalog, state and lock."""
        return self.root / ".dream"

    @property
    def vector_dir(self) -> Path:
        """The vector-based memory (personal, procedural and tool memories, profiles)."""
        return self.root / "vector"

    @property
    def vector_store_dir(self) -> Path:
        """The embedded vector store, shared by the assistant and `remecli memories`."""
        return self.vector_dir / "vector_store"

    @property
    def old_vector_store_dir(self) -> Path:
        """Where `remecli memories` kept its store before (moved to `vector_store_dir`)."""
        return self.root / "vector_store"

    @property
    def logs_dir(self) -> Path:
        """Where details of errors go."""
        return self.root / "logs"

    @property
    def log_file(self) -> Path:
        """The rotating log file."""
        return self.logs_dir / "remecli.log"

    @property
    def themes_dir(self) -> Path:
        """The user's own theme files (`*.yaml`)."""
        return self.root / "themes"

    @property
    def input_history(self) -> Path:
        """What was typed into the TUI's prompt (↑/↓ across runs)."""
        return self.root / "input_history.jsonl"

    @property
    def plain_history(self) -> Path:
        """What was typed into the plain REPL."""
        return self.root / "plain_history"

    # ---------------------------------------------------------------- creation
    def ensure(self) -> Locations:
        """Create the folders (private to the user) and a starter MEMORY.md; existing files keep
        their content. A working dir that others could read is made private (the log says so)
        and the derived state (`index/`) is tightened on every start."""
        tighten_working_dir(self.root)
        for folder in (
            self.root,
            self.memory_dir,
            self.tool_result_dir,
            self.sessions_dir,
        ):
            private_dirs(folder)
        self.ensure_index_dir()
        tighten_derived(self.root)
        if _create_if_missing(self.memory_md, MEMORY_MD_HEADER):  # a new memory
            note = ignore_in_git(self.root)
            if note:
                log.warning(note)
        return self

    def make_private(self) -> int:
        """Take group and other bits off what was made with the usual umask since the start
        (the index's files, new folders); returns how many entries changed."""
        return tighten_derived(self.root)

    def ensure_index_dir(self) -> str:
        """Create the derived-state folder; one that is a file (damage) is removed first.
        Returns a line for the user when something was repaired ("" otherwise)."""
        folder = self.index_dir
        note = ""
        if (folder.exists() or folder.is_symlink()) and not folder.is_dir():
            folder.unlink()
            note = f"the search index at {folder} was a file, not a folder; rebuilding it"
            log.warning(note)
        private_dirs(folder)
        return note


def _create_if_missing(path: Path, text: str) -> bool:
    """Write `text` to a new file at `path`; False when it existed."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        out.write(text)
    return True
