"""The working-dir layout (default `.reme/`): where every memory file lives."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from remecli.memory.files import create_if_missing

MEMORY_MD_HEADER = "# MEMORY\n\nLong-term memory: preferences, decisions and project facts.\n"


@dataclass(frozen=True)
class WorkingDir:
    """Paths under the working dir: MEMORY.md, memory/, tool_result/, sessions/, index/."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).expanduser().resolve())

    @property
    def memory_md(self) -> Path:
        """Long-term memory file written by the main agent."""
        return self.root / "MEMORY.md"

    @property
    def memory_dir(self) -> Path:
        """Folder of the daily summary logs `YYYY-MM-DD.md`."""
        return self.root / "memory"

    def daily_file(self, date: dt.date | None = None) -> Path:
        """The daily log for `date` (today when omitted)."""
        day = date or dt.date.today()
        return self.memory_dir / f"{day:%Y-%m-%d}.md"

    @property
    def tool_result_dir(self) -> Path:
        """Full outputs of offloaded tool results."""
        return self.root / "tool_result"

    @property
    def sessions_dir(self) -> Path:
        """Transcripts (`<id>.jsonl`) and saved states (`<id>.state.json`)."""
        return self.root / "sessions"

    @property
    def index_dir(self) -> Path:
        """Derived search indexes (rebuildable, never the source of truth)."""
        return self.root / "index"

    def transcript_file(self, session_id: str) -> Path:
        """Append-only transcript of one conversation."""
        return self.sessions_dir / f"{session_id}.jsonl"

    def state_file(self, session_id: str) -> Path:
        """Saved session state of one conversation (for resume)."""
        return self.sessions_dir / f"{session_id}.state.json"

    def ensure(self) -> WorkingDir:
        """Create the folders and a starter MEMORY.md; existing files are never touched."""
        for folder in (
            self.root,
            self.memory_dir,
            self.tool_result_dir,
            self.sessions_dir,
            self.index_dir,
        ):
            folder.mkdir(parents=True, exist_ok=True)
        create_if_missing(self.memory_md, MEMORY_MD_HEADER)
        return self
