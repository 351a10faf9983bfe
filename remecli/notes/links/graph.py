"""The derived link graph of a working dir: outlinks, backlinks and dangling links.

Notes are `MEMORY.md`, `memory/**/*.md` and `digest/**/*.md`. Links may also point at other files
of the working dir (e.g. `sessions/<id>.jsonl`). `sync()` re-parses only notes whose size or
mtime changed; `update_file(path)` handles one changed (or deleted) note and re-resolves only the
links its name or stem can affect. Parsed notes persist in `index/links.sqlite3`. While a watcher
and the writer's hooks call `update_file` (`followed_while`), `refresh()` trusts the graph; without
one it lists again only the note folders whose mtime moved (`scan.NoteScan`), not every note.
"""

from __future__ import annotations

import os
import posixpath
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from remecli.config.locations import Locations
from remecli.notes.file_service.sniff import (
    is_note_path as is_note_path,  # the one rule, re-exported
)
from remecli.notes.links.parse import ParsedNote, WikiLink, parse_note
from remecli.notes.links.resolve import (
    NameIndex,
    Resolver,
    disk_checker,
    link_keys,
    note_key,
    stem_of,
)
from remecli.notes.links.scan import MEMORY_MD, NoteScan, Stat, file_stat
from remecli.notes.links.store import FILE_NAME, LinkStore, StoredNote


@dataclass(frozen=True, slots=True)
class Edge:
    """A link from `source` (`link` as written) to `target` (None: dangling)."""

    source: str
    link: WikiLink
    target: str | None


class LinkGraph:
    """Links between the notes of `root`; thread-safe; persisted unless `persist=False`."""

    def __init__(self, root: Path | str, *, persist: bool = True) -> None:
        self.root = Path(os.path.realpath(Path(root).expanduser()))
        self.store = LinkStore(Locations(self.root).index_dir / FILE_NAME if persist else None)
        self._lock = threading.RLock()
        self._notes: dict[str, StoredNote] = {}
        self._index = NameIndex()
        self._resolved: dict[str, list[str | None]] = {}
        self._backrefs: dict[str, set[str]] = {}
        self._by_key: dict[str, set[str]] = {}
        self._exists = disk_checker(self.root)
        self._exists_cache: dict[str, bool] = {}
        self._resolver = Resolver(self._notes, self._index, self._file_exists)
        self._loaded = False
        self._scan = NoteScan(self.root)
        self.closed = False
        self._followed: Callable[[], bool] = lambda: False

    @classmethod
    def open(cls, root: Path | str, *, persist: bool = True) -> LinkGraph:
        """A graph of `root`, brought up to date with the files (only changes re-parsed)."""
        graph = cls(root, persist=persist)
        graph.sync()
        return graph

    def close(self) -> None:
        """Release the store."""
        self.closed = True
        self.store.close()

    # ------------------------------------------------------------ updating
    def followed_while(self, live: Callable[[], bool]) -> None:
        """Changes reach `update_file` (a watcher, the writer's hooks) while `live()` is true:
        `refresh` then trusts the graph. Start following before the graph's last `sync`."""
        self._followed = live

    def refresh(self) -> None:
        """Bring the graph up to date before a query: nothing while it is followed, else the
        note folders changed since they were listed are listed again (one stat a folder)."""
        if self._followed():
            return
        with self._lock:
            if not self._loaded:
                self.sync()
                return
            seen, listed = self._scan.list(self._scan.changed())
            memory = file_stat(self.root / MEMORY_MD)
            if memory is not None:
                seen[MEMORY_MD] = memory
            known = {MEMORY_MD} & self._notes.keys()
            if listed:
                known |= {p for p in self._notes if p.rpartition("/")[0] in listed}
            self._take(seen, known)

    def check(self, relative: str) -> None:
        """Parse one note again if its size or mtime changed (a followed graph may not have
        heard of a change yet: a page showing the note asks this first)."""
        with self._lock:
            note = self._notes.get(relative)
            known = None if note is None else (note.mtime_ns, note.size)
            if known != file_stat(self.root / relative):
                self.update_file(relative)

    def sync(self) -> int:
        """Re-parse new and changed notes, forget deleted ones; returns how many changed."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                self._install(*self.store.load())
            return self._take(self._scan.full(), set(self._notes))

    def _take(self, seen: dict[str, Stat], known: set[str]) -> int:
        """Parse the notes of `seen` that are new or changed, forget those of `known` not seen;
        returns how many changed."""
        changed = {
            path: stat
            for path, stat in seen.items()
            if (note := self._notes.get(path)) is None or (note.mtime_ns, note.size) != stat
        }
        removed = known - set(seen)
        parsed: dict[str, StoredNote] = {}
        for path, stat in changed.items():
            note = self._parse(path, stat)
            if note is not None:
                parsed[path] = note
        removed |= set(changed) - set(parsed)
        affected = self._apply(parsed, removed)
        if parsed or removed or affected:
            self.store.save(parsed, removed, self._resolutions(affected))
        return len(parsed) + len(removed)

    def rebuild(self) -> int:
        """Forget the stored state and parse every note again; returns the note count."""
        with self._lock:
            self.store.clear()
            self._apply({}, set(self._notes))
            self.sync()
            return len(self._notes)

    def update_file(self, relative: str) -> None:
        """Bring one note up to date after it was written, created or deleted."""
        relative = relative.replace(os.sep, "/")
        if not is_note_path(relative):
            return
        with self._lock:
            if not self._loaded:
                self.sync()
            stat = file_stat(self.root / relative)
            note = self._parse(relative, stat) if stat is not None else None
            if note is None:
                affected = self._apply({}, {relative})
                self.store.save({}, [relative], self._resolutions(affected))
            else:
                affected = self._apply({relative: note}, set())
                self.store.save({relative: note}, [], self._resolutions(affected))

    def _resolutions(self, sources: set[str]) -> dict[str, list[str | None]]:
        return {path: self._resolved[path] for path in sources if path in self._resolved}

    def _install(
        self, stored: dict[str, StoredNote], resolved: dict[str, list[str | None]]
    ) -> None:
        """Take the stored notes and their stored resolutions as they were (no resolving),
        except where a stored target is gone or missing; those notes are resolved again."""
        self._apply(stored, set(), resolve=False)
        stale: set[str] = set()
        for path, note in stored.items():
            targets = resolved.get(path)
            if targets is None or len(targets) != len(note.parsed.links):
                stale.add(path)
                continue
            root = str(self.root)
            if any(
                t is not None and t not in stored and not os.path.isfile(os.path.join(root, t))
                for t in targets
            ):
                stale.add(path)
                continue
            self._resolved[path] = targets
            for target in targets:
                if target is not None:
                    self._backrefs.setdefault(target, set()).add(path)
        for path in stale:
            self._resolve(path)

    def _parse(self, relative: str, stat: Stat | None) -> StoredNote | None:
        if stat is None:
            return None
        try:
            text = (self.root / relative).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        return StoredNote(stat[0], stat[1], parse_note(text))

    def _apply(
        self, changed: dict[str, StoredNote], removed: set[str], *, resolve: bool = True
    ) -> set[str]:
        """Swap notes in and out, then re-resolve every link their names can affect;
        returns the notes whose links were resolved again."""
        self._exists_cache.clear()
        affected: set[str] = set(changed)
        keys: set[str] = set()
        for path in set(changed) | removed:
            old = self._notes.pop(path, None)
            if old is not None:
                self._index.remove(path, old.parsed.name)
                keys |= _note_keys(path, old.parsed)
                self._forget_links(path, old.parsed)
            new = changed.get(path)
            if new is not None:
                self._notes[path] = new
                self._index.add(path, new.parsed.name)
                keys |= _note_keys(path, new.parsed)
                for link in new.parsed.links:
                    for key in link_keys(link.target):
                        self._by_key.setdefault(key, set()).add(path)
        if not resolve:
            return set()
        for key in keys:
            affected |= self._by_key.get(key, set())
        for path in removed:
            affected |= self._backrefs.get(path, set())
        affected = {path for path in affected if path in self._notes}
        for path in affected:
            self._resolve(path)
        return affected

    def _file_exists(self, relative: str) -> bool:
        """Whether a linked non-note file exists (cached for one update pass)."""
        found = self._exists_cache.get(relative)
        if found is None:
            found = self._exists_cache[relative] = self._exists(relative)
        return found

    def _forget_links(self, path: str, parsed: ParsedNote) -> None:
        for target in self._resolved.pop(path, []):
            if target is not None and target in self._backrefs:
                self._backrefs[target].discard(path)
                if not self._backrefs[target]:
                    del self._backrefs[target]
        for link in parsed.links:
            for key in link_keys(link.target):
                sources = self._by_key.get(key)
                if sources is not None:
                    sources.discard(path)
                    if not sources:
                        del self._by_key[key]

    def _resolve(self, path: str) -> None:
        for target in self._resolved.get(path, []):
            if target is not None and target in self._backrefs:
                self._backrefs[target].discard(path)
        resolved = [
            self._resolver.resolve(path, link.target) for link in self._notes[path].parsed.links
        ]
        self._resolved[path] = resolved
        for target in resolved:
            if target is not None:
                self._backrefs.setdefault(target, set()).add(path)

    # ------------------------------------------------------------- queries
    def notes(self) -> list[str]:
        """Every note path, sorted."""
        with self._lock:
            return sorted(self._notes)

    def locate(self, raw: str) -> str | None:
        """The note or file `raw` names: a working-dir-relative or absolute path, or a name."""
        text = raw.strip()
        candidate = Path(text).expanduser()
        if candidate.is_absolute():
            real = Path(os.path.realpath(candidate))
            if not real.is_relative_to(self.root) or not real.is_file():
                return None
            return real.relative_to(self.root).as_posix()
        relative = posixpath.normpath(text.replace("\\", "/")) if text else ""
        with self._lock:
            if relative in self._notes:
                return relative
        if relative and not relative.startswith("..") and disk_checker(self.root)(relative):
            return relative
        return self.resolve(MEMORY_MD, text)

    def resolve(self, source: str, target: str) -> str | None:
        """Where `target` written in `source` points now (None: nowhere)."""
        with self._lock:
            return self._resolver.resolve(source, target)

    def outlinks(self, relative: str) -> list[Edge]:
        """The links written in `relative`, in order, resolved or dangling."""
        with self._lock:
            note = self._notes.get(relative)
            if note is None:
                return []
            targets = self._resolved.get(relative, [None] * len(note.parsed.links))
            return [
                Edge(relative, link, t) for link, t in zip(note.parsed.links, targets, strict=True)
            ]

    def backlinks(self, relative: str) -> list[Edge]:
        """Links elsewhere that resolve to `relative`, by source then line."""
        with self._lock:
            edges = []
            for source in sorted(self._backrefs.get(relative, set())):
                edges += [e for e in self.outlinks(source) if e.target == relative]
            return edges

    def neighbour_paths(self, relative: str, limit: int) -> tuple[list[str], list[str]]:
        """Up to `limit` distinct notes `relative` links to, in link order, and up to `limit`
        notes that link to it, by path — without building an edge per link (search hits ask
        this for every result)."""
        with self._lock:
            out: dict[str, None] = {}
            for target in self._resolved.get(relative, ()):
                if target is not None and target != relative and len(out) < limit:
                    out.setdefault(target, None)
            sources = sorted(
                source
                for source in self._backrefs.get(relative, set())
                if source != relative and relative in self._resolved.get(source, ())
            )
            return list(out), sources[:limit]

    def dangling(self) -> list[Edge]:
        """Every link that resolves to nothing, by source then line."""
        with self._lock:
            return [
                edge
                for source in sorted(self._notes)
                for edge in self.outlinks(source)
                if edge.target is None
            ]

    def status(self, relative: str) -> str:
        """A note's frontmatter `status` (a digest node's: active, contradicted) or ''."""
        with self._lock:
            note = self._notes.get(relative)
            return note.parsed.status if note is not None else ""

    def adjacency(self) -> dict[str, set[str]]:
        """Every note's distinct link targets that are notes (no self links), in one pass."""
        with self._lock:
            return {
                path: {t for t in self._resolved.get(path, ()) if t in self._notes and t != path}
                for path in self._notes
            }

    def describe(self, relative: str) -> dict[str, str]:
        """`{"path", "name", "description"}` of a note or any linked file (no body)."""
        with self._lock:
            note = self._notes.get(relative)
            name = note.parsed.name if note is not None else ""
            description = note.parsed.description if note is not None else ""
            return {"path": relative, "name": name or stem_of(relative), "description": description}


def _note_keys(path: str, parsed: ParsedNote) -> set[str]:
    keys = {note_key(stem_of(path))}
    if parsed.name:
        keys.add(note_key(parsed.name))
    return keys - {""}
