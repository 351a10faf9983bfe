"""What every tool needs to know: where it works and its limits."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.config.settings import ToolSettings
from remecli.notes.file_service import FileService
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.tools.checkpoints import Checkpoints


@dataclass
class ToolContext:
    """The environment shared by the tools of one session.

    `workspace` is where file tools and bash operate (relative paths resolve against it);
    `working_dir` is remecli's own folder (`.reme`); `accepts_images` says whether the chat
    model takes image blocks in tool results. `scratch_dirs` are folders outside the workspace
    that bash may write to without being asked (temp folders); for the file tools they are
    outside like any other folder (`file_reach`).
    `writer` is the working dir's one memory writer (versioned, redacted) that `edit` and
    `write` use for memory files, passed in by the composition root (the runtime's).
    `checkpoints` keeps workspace files before `write`/`edit`/`bash` change them (None: off).
    """

    workspace: Path
    working_dir: Path
    settings: ToolSettings
    accepts_images: bool = False
    scratch_dirs: tuple[Path, ...] = field(default_factory=lambda: default_scratch_dirs())
    writer: MemoryWriter = field(kw_only=True)
    checkpoints: Checkpoints | None = field(default=None, kw_only=True)

    @classmethod
    def from_settings(
        cls,
        settings: ToolSettings,
        working_dir: Path,
        writer: MemoryWriter,
        accepts_images: bool = False,
    ) -> ToolContext:
        """Build a context whose workspace is `settings.workspace` or the current directory."""
        workspace = Path(settings.workspace).expanduser() if settings.workspace else Path.cwd()
        return cls(
            workspace=workspace.resolve(),
            working_dir=working_dir,
            settings=settings,
            accepts_images=accepts_images,
            writer=writer,
        )

    @property
    def files(self) -> FileService:
        """The one file service, over this context's memory writer."""
        return FileService(self.writer)

    def is_scratch(self, path: str | os.PathLike[str]) -> bool:
        """True when `path` (symlinks followed) lies in remecli's working folder or a scratch dir."""
        real = Path(os.path.realpath(self.resolve(path)))
        for root in (self.working_dir, *self.scratch_dirs):
            base = Path(os.path.realpath(self.resolve(root)))
            if real == base or base in real.parents:
                return True
        return False

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """Absolute, normalised path; `~` expanded, relative paths against the workspace."""
        candidate = Path(os.path.expanduser(os.fspath(path)))
        if not candidate.is_absolute():
            candidate = self.workspace / candidate
        return Path(os.path.normpath(candidate))

    def is_inside_workspace(self, path: str | os.PathLike[str]) -> bool:
        """True when `path` (symlinks followed) lies in the workspace."""
        real = Path(os.path.realpath(self.resolve(path)))
        root = Path(os.path.realpath(self.workspace))
        return real == root or root in real.parents


def default_scratch_dirs() -> tuple[Path, ...]:
    """The system temp folders."""
    names = dict.fromkeys([tempfile.gettempdir(), "/tmp", "/var/tmp"])
    return tuple(Path(name) for name in names)
