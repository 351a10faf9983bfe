"""Each dream run as a changeset in `<working_dir>/.dream/runs/<run id>.json`.

A changeset holds the run's id, time, status, message, units (with their cards and outcome) and,
per node, the action (CREATE / CORROBORATE / REFINE / CORRECT, or ADOPTED / ROLLED BACK /
REMOVED for recovery), the node's text before and after, the version ids the writer's history
gave those texts, and the cards it rests on. With `memory.dream.review: true` a run's changes are
not written: its changeset is `pending` until approved (written then, each node only if it is
still what the run saw) or rejected. Reverting a node or a whole run goes through the version
history (itself a new version, so a revert can be undone with `memory restore`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_text
from remecli.notes.layout import WorkingDir

APPLIED, PENDING, APPROVED, REJECTED = "applied", "pending", "approved", "rejected"
_RUN_ID = re.compile(r"^\d{8}T\d{6}-[0-9a-f]{4}$")
CHANGE_WORDS = {  # a node's action as its outcome reads
    "CREATE": "added",
    "CORROBORATE": "corroborated",
    "REFINE": "refined",
    "CORRECT": "corrected",
    "ADOPTED": "adopted",
    "ROLLED BACK": "rolled back",
    "REMOVED": "removed",
}


@dataclass
class NodeChange:
    """What one run did (or proposes) to one digest node."""

    path: str
    action: str
    unit: str = ""
    sources: list[str] = field(default_factory=list)
    before: str | None = None
    after: str | None = None
    before_version: int | None = None
    after_version: int | None = None
    reverted: dict[str, Any] | None = None  # {"time", "version"} once reverted


@dataclass
class UnitRecord:
    """One unit of the run and how it went."""

    name: str
    bucket: str
    summary: str
    cards: list[str]
    ok: bool
    action: str = ""
    path: str = ""
    detail: str = ""


@dataclass
class Changeset:
    """One dream run."""

    id: str
    time: str
    status: str
    message: str = ""
    units: list[UnitRecord] = field(default_factory=list)
    nodes: list[NodeChange] = field(default_factory=list)

    def to_json(self) -> str:
        """The changeset as JSON text."""
        return json.dumps(asdict(self), ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Changeset:
        """A changeset from its JSON mapping (raises KeyError/TypeError when damaged)."""
        return cls(
            id=str(data["id"]),
            time=str(data["time"]),
            status=str(data["status"]),
            message=str(data.get("message") or ""),
            units=[UnitRecord(**u) for u in data.get("units") or []],
            nodes=[NodeChange(**n) for n in data.get("nodes") or []],
        )

    def outcome(self) -> str:
        """What became of the run, as a reader asks: the status, except `reverted` (every node
        it changed was reverted since), `partly reverted`, and `failed` (no unit succeeded)."""
        if self.status in (APPLIED, APPROVED):
            changed = [n for n in self.nodes if n.after != n.before]
            undone = [n for n in changed if n.reverted is not None]
            if changed and len(undone) == len(changed):
                return "reverted"
            if undone:
                return "partly reverted"
        if self.units and not any(u.ok for u in self.units):
            return "failed"
        return self.status

    def changes(self) -> str:
        """What the run changed (or, pending, proposes) in the digest, as a reader asks:
        '3 nodes added, 1 corrected', 'nothing new' (a node it left as it was is no change)."""
        counts: dict[str, int] = {}
        for node in self.nodes:
            if node.after != node.before:
                label = CHANGE_WORDS.get(node.action, node.action.lower())
                counts[label] = counts.get(label, 0) + 1
        parts = [f"{count} {label}" for label, count in counts.items()]
        if parts:
            first = next(iter(counts.values()))
            parts[0] = parts[0].replace(" ", " node " if first == 1 else " nodes ", 1)
        failed = sum(1 for unit in self.units if not unit.ok)
        if failed:
            parts.append(f"{failed} unit(s) failed")
        return ", ".join(parts) or "nothing new"

    def node(self, path: str) -> NodeChange | None:
        """The change of `path` in this run, None when the run did not touch it."""
        return next((n for n in self.nodes if n.path == path), None)


def runs_dir(working_dir: WorkingDir) -> Path:
    """`<working_dir>/.dream/runs/`."""
    return working_dir.dream_dir / "runs"


def new_run_id(now: dt.datetime | None = None) -> str:
    """A run id that sorts by time: `YYYYMMDDTHHMMSS-xxxx` (local time; `xxxx` the fraction of
    the second in 16 µs steps, so two runs in one second keep their order)."""
    moment = now or dt.datetime.now().astimezone()
    return f"{moment:%Y%m%dT%H%M%S}-{moment.microsecond // 16:04x}"


def is_run_id(text: str) -> bool:
    """True when `text` has the shape of a run id (never a path)."""
    return bool(_RUN_ID.match(text))


def save(working_dir: WorkingDir, changeset: Changeset) -> Path:
    """Write `changeset` atomically (private: it holds node texts)."""
    folder = runs_dir(working_dir)
    private_dirs(folder)
    path = folder / f"{changeset.id}.json"
    atomic_write_text(path, changeset.to_json())
    os.chmod(path, 0o600)
    return path


def load(working_dir: WorkingDir, run_id: str) -> Changeset | None:
    """The changeset of `run_id`, None when there is none (or it is unreadable)."""
    if not is_run_id(run_id):
        return None
    try:
        data = json.loads((runs_dir(working_dir) / f"{run_id}.json").read_text(encoding="utf-8"))
        return Changeset.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_runs(working_dir: WorkingDir, limit: int = 50) -> list[Changeset]:
    """The latest `limit` runs, newest first (unreadable ones skipped)."""
    folder = runs_dir(working_dir)
    try:
        names = sorted((p.stem for p in folder.glob("*.json") if is_run_id(p.stem)), reverse=True)
    except OSError:
        return []
    runs = [load(working_dir, name) for name in names[:limit]]
    return [run for run in runs if run is not None]
