"""What a job handler gets: the memory runtime, its writer, path confinement, the file locks."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import cast

from remecli.notes.file_service import FileService
from remecli.notes.locks import FileLocks
from remecli.notes.writer import MemoryWriter
from remecli.ops.host import MemoryHost, Progress
from remecli.ops.paths import Confined, confine


@dataclass
class JobContext:
    """The runtime (`FileMemory`) a job acts on, shared by every surface of one process;
    `progress` is where a long job (memory_reindex) reports, if a surface shows it."""

    memory: MemoryHost
    progress: Progress | None = None

    @classmethod
    def stand_in(cls, host: object) -> JobContext:
        """A context on a stand-in for the runtime (a bare index or link graph: benchmarks,
        library use) that serves only the one operation it is made for; mypy cannot check that
        pairing, so every such context is made here."""
        return cls(cast(MemoryHost, host))

    @property
    def writer(self) -> MemoryWriter:
        """The runtime's one memory writer (versioned, redacted), built by its composition root."""
        return self.memory.writer

    @property
    def files(self) -> FileService:
        """The one file service, over the runtime's writer."""
        return FileService(self.writer)

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
