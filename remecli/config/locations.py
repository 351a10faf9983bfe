"""The one owner of locations: every path remecli reads or writes, resolved once.

`Locations.from_settings(settings, cwd)` resolves `working_dir` and `tools.workspace` against the
current directory exactly once, after the settings are loaded; every other module asks the
resulting object instead of joining paths of its own.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from remecli.config.settings import Settings

_PACKAGE = Path(__file__).resolve().parent.parent
MEMORY_MD_HEADER = "# MEMORY\n\nLong-term memory: preferences, decisions and project facts.\n"
FOLDER_MODE = 0o700  # the working dir holds conversations: private to the user


def bundled_dir(name: str) -> Path:
    """The packaged `config` or `themes` folder: inside the wheel, else at the checkout's top."""
    installed = _PACKAGE / "_bundled" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def resolve_against(cwd: Path, raw: str | Path) -> Path:
    """`raw` (`~` expanded) as an absolute path, relative paths taken from `cwd`."""
    return (cwd / Path(raw).expanduser()).resolve()


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
        """The vector-based memory (personal, task and tool memories) when it is enabled."""
        return self.root / "vector"

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
        """Create the folders (private to the user) and a starter MEMORY.md; existing files are
        never touched."""
        for folder in (
            self.root,
            self.memory_dir,
            self.tool_result_dir,
            self.sessions_dir,
            self.index_dir,
        ):
            created = not folder.exists()
            folder.mkdir(parents=True, exist_ok=True)
            if created:
                os.chmod(folder, FOLDER_MODE)
        _create_if_missing(self.memory_md, MEMORY_MD_HEADER)
        return self


def _create_if_missing(path: Path, text: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
        out.write(text)
