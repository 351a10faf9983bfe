"""Where a wikilink points: a path (working-dir- or note-relative) or a note name or file stem.

Order: an empty target is the note itself (`[[#L5]]`); then a path relative to the working dir,
then to the linking note's folder (`.md` added when the target has no extension); then the
frontmatter `name` of a note, then a file stem (`[[deploy steps]]` finds `deploy-steps.md`;
`[[sub/deploy]]` finds `…/sub/deploy.md`). Ties go to the note in the linking note's folder, then
the shortest path, then the first in sort order. A link never resolves outside the working dir,
and a resolved link always names a file that exists.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Callable, Collection

_SEPARATORS = re.compile(r"[\s_\-]+")
_EXTENSION = re.compile(r"^\.[A-Za-z0-9]{1,8}$")


@functools.lru_cache(maxsize=65_536)
def note_key(text: str) -> str:
    """How names and stems are compared: case-insensitive, spaces, `-` and `_` alike."""
    return _SEPARATORS.sub(" ", text.casefold()).strip()


def has_extension(target: str) -> bool:
    """True when the last part of `target` ends with a file extension such as `.md`."""
    last = target.rsplit("/", 1)[-1]
    dot = last.rfind(".")
    return dot > 0 and bool(_EXTENSION.match(last[dot:]))


def stem_of(target: str) -> str:
    """The last part of `target` without a `.md` extension."""
    last = target.rstrip("/").rsplit("/", 1)[-1]
    return last[:-3] if last.lower().endswith(".md") else last


def link_keys(target: str) -> set[str]:
    """Keys under which notes that could answer `target` are found (name and stem)."""
    return {note_key(target), note_key(stem_of(target))} - {""}


class NameIndex:
    """Notes by frontmatter name and by file stem (both as `note_key`)."""

    def __init__(self) -> None:
        self.by_name: dict[str, set[str]] = {}
        self.by_stem: dict[str, set[str]] = {}

    def add(self, path: str, name: str) -> None:
        """Index `path` under its name (if any) and its stem."""
        if name:
            self.by_name.setdefault(note_key(name), set()).add(path)
        self.by_stem.setdefault(note_key(stem_of(path)), set()).add(path)

    def remove(self, path: str, name: str) -> None:
        """Forget `path` (as it was indexed with `name`)."""
        for table, key in ((self.by_name, note_key(name)), (self.by_stem, note_key(stem_of(path)))):
            paths = table.get(key)
            if paths is not None:
                paths.discard(path)
                if not paths:
                    del table[key]


def _best(candidates: Collection[str], source: str) -> str | None:
    if not candidates:
        return None
    folder = posixpath.dirname(source)
    return min(
        candidates,
        key=lambda path: (posixpath.dirname(path) != folder, path.count("/"), path),
    )


def _inside(path: str) -> bool:
    return bool(path) and path != ".." and not path.startswith(("../", "/"))


class Resolver:
    """Resolves link targets against the notes of a graph and the files of the working dir."""

    def __init__(
        self,
        notes: Collection[str],
        index: NameIndex,
        file_exists: Callable[[str], bool],
    ) -> None:
        self.notes = notes
        self.index = index
        self.file_exists = file_exists

    def resolve(self, source: str, target: str) -> str | None:
        """The working-dir-relative path `target` (linked from `source`) names, or None."""
        target = target.strip().replace("\\", "/")
        if not target:
            return source
        found = self._by_path(source, target)
        if found is not None:
            return found
        return self._by_name(source, target)

    def _by_path(self, source: str, target: str) -> str | None:
        if target.startswith("/"):
            bases = [target.lstrip("/")]
        else:
            folder = source.rpartition("/")[0]
            bases = [target, f"{folder}/{target}" if folder else target]
        extension = has_extension(target)
        pathlike = "/" in target or extension
        for base in bases:
            for variant in (base,) if extension else (base + ".md", base):
                path = variant
                if "./" in path or "//" in path or path.endswith(("/.", "/..")):
                    path = posixpath.normpath(path)
                if not _inside(path):
                    continue
                if path in self.notes:
                    return path
                if pathlike and self.file_exists(path):
                    return path
        return None

    def _by_name(self, source: str, target: str) -> str | None:
        named = self.index.by_name.get(note_key(target), set())
        if named:
            return _best(named, source)
        stems = self.index.by_stem.get(note_key(stem_of(target)), set())
        if "/" in target:
            tail = "/" + target.strip("/").lower()
            tail = tail if tail.endswith(".md") else tail + ".md"
            stems = {path for path in stems if ("/" + path.lower()).endswith(tail)}
        return _best(stems, source)


def disk_checker(root: os.PathLike[str] | str) -> Callable[[str], bool]:
    """`file_exists(relative)` for files under `root` (symlinks leading outside do not count)."""
    real_root = os.path.realpath(root)

    def file_exists(relative: str) -> bool:
        joined = os.path.join(real_root, relative)
        if not os.path.isfile(joined):
            return False
        return os.path.realpath(joined).startswith(real_root + os.sep)

    return file_exists
