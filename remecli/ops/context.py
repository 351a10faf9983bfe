"""What a job handler gets: the memory runtime, its writer, path confinement, the file locks."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from remecli.notes.locks import FileLocks
from remecli.notes.writer import MemoryWriter
from remecli.ops.paths import Confined, confine


@dataclass
class JobContext:
    """The runtime (`FileMemory`) a job acts on, shared by every surface of one process."""

    memory: (
        Any  # remecli.conversation.file_memory.FileMemory (typed loosely: jobs use its public API)
    )

    @property
    def writer(self) -> MemoryWriter:
        """The runtime's one memory writer (versioned, redacted), built by its composition root."""
        writer: MemoryWriter = self.memory.writer
        return writer

    @cached_property
    def locks(self) -> FileLocks:
        """The per-file locks of the working dir (made on first use)."""
        return FileLocks(self.memory.layout.locks_dir)

    @property
    def root(self) -> Path:
        """The working dir."""
        return Path(self.memory.layout.root)

    def confine(self, raw: str, *, allow_root: bool = False) -> Confined:
        """`raw` resolved inside the working dir (or a JobError saying why not)."""
        return confine(self.root, raw, allow_root=allow_root)
