"""The persisted, rebuildable part of the link graph: `<working_dir>/index/links.sqlite3`.

It keeps what parsing found per note (size, mtime, name, description, status, wikilinks) and where each
link resolved, so a start re-reads only changed notes and re-resolves only what they affect. A corrupt or unreadable file is
deleted and rebuilt (it is derived from the Markdown files).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.notes.links.parse import ParsedNote, WikiLink

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
FILE_NAME = "links.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    name TEXT NOT NULL, description TEXT NOT NULL, status TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
    source TEXT NOT NULL, position INTEGER NOT NULL, target TEXT NOT NULL,
    anchor TEXT NOT NULL, alias TEXT NOT NULL, line INTEGER NOT NULL,
    PRIMARY KEY (source, position)
);
CREATE TABLE IF NOT EXISTS resolved (source TEXT PRIMARY KEY, targets TEXT NOT NULL);
"""


@dataclass(slots=True)
class StoredNote:
    """A note as last parsed: the file's size and mtime then, and what it held."""

    mtime_ns: int
    size: int
    parsed: ParsedNote


class LinkStore:
    """sqlite persistence of parsed notes; `None` path keeps everything in memory."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        if self.path is None:
            return self._init(sqlite3.connect(":memory:", check_same_thread=False))
        try:
            private_dirs(self.path.parent)
            _create_private(self.path)
            return self._init(sqlite3.connect(self.path, check_same_thread=False))
        except (sqlite3.DatabaseError, OSError) as exc:
            log.warning("link graph store %s unusable (%s): rebuilding", self.path, exc)
            with contextlib.suppress(OSError):
                self.path.unlink()
        try:
            _create_private(self.path)
            return self._init(sqlite3.connect(self.path, check_same_thread=False))
        except (sqlite3.DatabaseError, OSError) as exc:  # e.g. index/ is a file
            log.warning("link graph kept in memory only: %s", exc)
            self.path = None
            return self._init(sqlite3.connect(":memory:", check_same_thread=False))

    @staticmethod
    def _init(db: sqlite3.Connection) -> sqlite3.Connection:
        # derived data: a crash may lose the last updates (rebuilt from the files), never the notes
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):  # an older layout: made anew
            with db:
                for table in ("notes", "links", "resolved"):
                    db.execute(f"DROP TABLE {table}")
            db.executescript(_SCHEMA)
            with db:
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
        return db

    def load(self) -> tuple[dict[str, StoredNote], dict[str, list[str | None]]]:
        """Every stored note by path, and the link targets last resolved per note."""
        try:
            notes = {
                path: StoredNote(mtime_ns, size, ParsedNote(name, description, [], status))
                for path, mtime_ns, size, name, description, status in self._db.execute(
                    "SELECT path, mtime_ns, size, name, description, status FROM notes"
                )
            }
            rows = self._db.execute(
                "SELECT source, target, anchor, alias, line FROM links ORDER BY source, position"
            )
            for source, target, anchor, alias, line in rows:
                if source in notes:
                    notes[source].parsed.links.append(WikiLink(target, anchor, alias, line))
            resolved = {
                source: json.loads(targets)
                for source, targets in self._db.execute("SELECT source, targets FROM resolved")
            }
        except (sqlite3.DatabaseError, ValueError) as exc:
            log.warning("link graph store unreadable (%s): rebuilding", exc)
            self.clear()
            return {}, {}
        return notes, resolved

    def save(
        self,
        changed: dict[str, StoredNote],
        removed: Iterable[str],
        resolved: dict[str, list[str | None]],
    ) -> None:
        """Replace the rows of `changed` notes, drop `removed` ones and store the `resolved`
        targets of the notes whose links were resolved again, in one transaction."""
        gone = [(path,) for path in removed]
        try:
            with self._db:
                paths = [(path,) for path in changed] + gone
                self._db.executemany("DELETE FROM notes WHERE path = ?", paths)
                self._db.executemany("DELETE FROM links WHERE source = ?", paths)
                self._db.executemany("DELETE FROM resolved WHERE source = ?", gone)
                self._db.executemany(
                    "INSERT OR REPLACE INTO resolved VALUES (?, ?)",
                    [(path, json.dumps(targets)) for path, targets in resolved.items()],
                )
                self._db.executemany(
                    "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            path,
                            n.mtime_ns,
                            n.size,
                            n.parsed.name,
                            n.parsed.description,
                            n.parsed.status,
                        )
                        for path, n in changed.items()
                    ],
                )
                self._db.executemany(
                    "INSERT INTO links VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (path, position, link.target, link.anchor, link.alias, link.line)
                        for path, n in changed.items()
                        for position, link in enumerate(n.parsed.links)
                    ],
                )
        except sqlite3.DatabaseError as exc:  # derived data: losing it costs a re-parse
            log.warning("link graph store not saved: %s", exc)

    def clear(self) -> None:
        """Forget everything (the next sync parses every note)."""
        with contextlib.suppress(sqlite3.DatabaseError), self._db:
            self._db.execute("DELETE FROM notes")
            self._db.execute("DELETE FROM links")
            self._db.execute("DELETE FROM resolved")

    def close(self) -> None:
        """Close the database."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


def _create_private(path: Path) -> None:
    """Create the database file 0600 (sqlite gives its -wal/-shm files the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
