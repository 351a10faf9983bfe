"""Putting files from elsewhere into `resource/` (what `remecli ingest PATH` does first).

A file is copied to `resource/<name>`, a folder's files to `resource/<folder>/<path>`; the
original is only read. Before anything is copied the file is read as its card would read it, so a
file that would be refused (too large, binary, broken JSON, a scan without text) leaves no copy
behind. `resource/.origins.json` remembers where each copy came from: ingesting the same file
again after it changed replaces the copy (atomically) and its card is updated in place; a
different file of the same name is refused (rename it, or `replace=True` to overwrite the copy).
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from remecli.config.privacy import private_dirs
from remecli.knowledge.resources.cards import RESOURCE_FOLDER, ResourceCards
from remecli.knowledge.resources.extract import (
    ResourceRefused,
    extract,
    is_temp_name,
    kind_of,
    unsupported,
)
from remecli.knowledge.resources.paths import not_regular, special_kind
from remecli.notes.atomic_write import atomic_write_text
from remecli.notes.locks import FileLock

ORIGINS_FILE = ".origins.json"  # in resource/ (a dot file: never a resource itself)
Problem = Literal["usage", "refused", "skipped"]


@dataclass(frozen=True)
class Placed:
    """One file given (or found in a folder given): its `resource/<file>`, or why not."""

    source: str  # as the user named it (a folder's file: its path)
    rel: str | None = None  # `resource/<file>` to ingest
    problem: Problem | None = None  # usage: the PATH itself is wrong (exit 2)
    message: str = ""


class ResourcePlacer:
    """Copies files and folders into the resource folder of `cards`."""

    def __init__(self, cards: ResourceCards, *, replace: bool = False) -> None:
        self.cards = cards
        self.replace = replace
        self.root = Path(cards.layout.root)

    def place(self, raw: str) -> list[Placed]:
        """What `raw` (a file or a folder, inside `resource/` or anywhere) becomes."""
        if not raw.strip():
            return [Placed(raw, problem="usage", message="PATH is empty; name a file or folder")]
        source = Path(raw).expanduser()
        if not source.exists():
            return [Placed(raw, problem="usage", message=f"{raw}: no such file or folder")]
        kind = special_kind(source)
        if kind is not None:
            return [Placed(raw, problem="refused", message=not_regular(raw, kind))]
        with contextlib.suppress(ValueError):
            return [Placed(raw, self.cards.relative(source))]  # already in resource/
        if self._is_private(source):
            return [
                Placed(
                    raw,
                    problem="refused",
                    message=f"{raw} is one of the memory's own private files; it is never ingested",
                )
            ]
        if source.is_dir():
            return self._place_folder(raw, source)
        return [self._place_file(raw, source, self.cards.folder / source.name, named=True)]

    def _is_private(self, source: Path) -> bool:
        real = source.resolve()
        root = self.root.resolve()
        return real.is_relative_to(root) and not self.cards.readable(source)

    def _place_folder(self, raw: str, folder: Path) -> list[Placed]:
        placed = []
        base = self.cards.folder / folder.resolve().name
        for path in self._files_under(folder):
            inner = path.relative_to(folder).parts
            if any(is_temp_name(part) for part in inner) or not path.is_file():
                continue
            placed.append(self._place_file(str(path), path, base.joinpath(*inner), named=False))
        if not placed:
            return [Placed(raw, problem="usage", message=f"{raw}: the folder has no files")]
        return placed

    def _files_under(self, folder: Path) -> list[Path]:
        """Every entry below `folder` (symlinked folders not entered), sorted; the memory's own
        working dir is never walked (`remecli ingest .` in a project holding `.reme/` must not
        copy its conversations, index and resource/ into resource/)."""
        root = os.path.realpath(self.root)
        found: list[Path] = []
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(top, d)) != root]
            found += [Path(top, name) for name in [*dirs, *files]]
        return sorted(found)

    def _place_file(self, raw: str, source: Path, target: Path, *, named: bool) -> Placed:
        """Copy `source` to `target` unless it would be refused or clash with another file."""
        if not named and kind_of(source) is None:  # a folder's image or archive: skipped
            return Placed(raw, problem="skipped", message=unsupported(raw))
        try:
            extract(source, raw)  # what the card would read: refused here, nothing is copied
        except ResourceRefused as exc:
            return Placed(raw, problem="refused", message=str(exc))
        except OSError as exc:
            return Placed(raw, problem="refused", message=f"{raw}: {exc.strerror or exc}")
        origin = str(source.resolve())
        with self._origins() as origins:
            earlier = [r for r, o in sorted(origins.items()) if o == origin]
            if earlier and (self.root / earlier[0]).is_file():  # copied before, maybe elsewhere
                target = self.root / earlier[0]
            rel = f"{RESOURCE_FOLDER}/{target.relative_to(self.cards.folder).as_posix()}"
            if target.exists() and filecmp.cmp(source, target, shallow=False):
                origins.setdefault(rel, origin)
                return Placed(raw, rel)
            if target.exists() and origins.get(rel) != origin and not self.replace:
                came = origins.get(rel)
                where = f"copied from {came}" if came else "not copied by remecli ingest"
                return Placed(
                    raw,
                    problem="usage",
                    message=f"{rel} already exists with other content ({where}); "
                    f"`remecli ingest --replace {raw}` replaces it and updates its card in "
                    "place, or rename the file to keep both",
                )
            _copy_atomically(source, target)
            origins[rel] = origin
        return Placed(raw, rel)

    @contextlib.contextmanager
    def _origins(self) -> Iterator[dict[str, str]]:
        """`resource/.origins.json` as a dict, saved when the block ends (one process at a
        time: `index/locks/resource-origins.lock`)."""
        private_dirs(self.cards.layout.locks_dir)
        path = self.cards.folder / ORIGINS_FILE
        with FileLock(self.cards.layout.locks_dir / "resource-origins.lock"):
            origins = read_origins(path)
            before = dict(origins)
            yield origins
            if origins != before:
                text = json.dumps(origins, indent=1, sort_keys=True) + "\n"
                atomic_write_text(path, text, new_mode=0o600)


def read_origins(path: Path) -> dict[str, str]:
    """`resource/<file>` → where its copy came from (empty when missing or unreadable)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _copy_atomically(source: Path, target: Path) -> None:
    """`target` becomes a copy of `source` at once (a reader never sees half a file)."""
    private_dirs(target.parent)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")  # a dot file: not watched
    try:
        shutil.copy2(source, temporary)
        temporary.chmod(0o600)  # private, like every file of the memory
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
