"""What the last sync did, kept in `<working_dir>/.sync/state.json` (local, never travels), and
the conflicts still open (a file holding a kept conflict, or the other side's copy beside it)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from remecli.notes.atomic_write import atomic_write_text
from remecli.sync.textmerge import has_conflict

CONFLICT_COPY = ".conflict-"  # `plan.conflict-desktop.pdf`: the other side's version of a file


@dataclass
class Conflict:
    """A file a sync could not merge, with how to resolve it."""

    path: str
    detail: str


@dataclass
class Refused:
    """A file a sync did not push because the redactor finds a secret in it."""

    path: str
    kinds: list[str]


@dataclass
class SyncState:
    """The outcome of the last sync (`outcome`: ok, conflicts, refused, offline, error)."""

    time: str = ""
    outcome: str = "never"
    message: str = ""
    pulled: int = 0
    pushed: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> SyncState:
        """The saved state (a fresh one when there is none or it is unreadable)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                time=str(data.get("time", "")),
                outcome=str(data.get("outcome", "never")),
                message=str(data.get("message", "")),
                pulled=int(data.get("pulled", 0)),
                pushed=int(data.get("pushed", 0)),
                conflicts=[Conflict(**c) for c in data.get("conflicts", [])],
                refused=[Refused(**r) for r in data.get("refused", [])],
            )
        except (OSError, ValueError, TypeError, AttributeError):
            return cls()

    def save(self, path: Path) -> None:
        """Write it (atomically; 0600)."""
        self.time = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        atomic_write_text(path, json.dumps(asdict(self), indent=2) + "\n", new_mode=0o600)


def conflict_detail(path: str) -> str:
    """How to resolve the conflict in `path`."""
    if CONFLICT_COPY in Path(path).name:
        original = conflict_original(path)
        return (
            f"the other machine's version of {original}, kept beside it: keep what you want in "
            f"{original}, delete {path}, then run `remecli sync`"
        )
    return (
        "changed differently on both machines; both versions are kept between <<<<<<< and "
        ">>>>>>> lines: edit the file to keep what is right (remove the marker lines), then run "
        "`remecli sync`"
    )


def conflict_original(path: str) -> str:
    """`a/plan.conflict-desktop.pdf` → `a/plan.pdf`."""
    folder, _, name = path.rpartition("/")
    stem, _, rest = name.partition(CONFLICT_COPY)
    suffix = "." + rest.split(".", 1)[1] if "." in rest else ""
    return f"{folder}/{stem}{suffix}" if folder else f"{stem}{suffix}"


def open_conflicts(root: Path, candidates: list[str]) -> list[Conflict]:
    """The `candidates` (relative paths) that still hold a conflict, sorted."""
    found = []
    for rel in sorted(set(candidates)):
        path = root / rel
        if CONFLICT_COPY in path.name:
            if path.exists():
                found.append(Conflict(rel, conflict_detail(rel)))
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if has_conflict(text):
            found.append(Conflict(rel, conflict_detail(rel)))
    return found
