"""Dream review: record a run as a changeset, approve or reject a pending one, revert a node or
a whole run through the version history. See `changesets` for the format."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from remecli.knowledge.dream import changesets
from remecli.knowledge.dream.changesets import (
    APPLIED,
    APPROVED,
    PENDING,
    REJECTED,
    Changeset,
    NodeChange,
    UnitRecord,
)
from remecli.knowledge.dream.digest import sources_links
from remecli.knowledge.dream.recovery import Recovered
from remecli.knowledge.dream.state import dream_lock
from remecli.notes.layout import WorkingDir
from remecli.notes.versions import VersionNotFound
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter

if TYPE_CHECKING:  # the integration agent's runtime is not loaded to review a run
    from remecli.knowledge.dream.integrate import UnitOutcome


class ReviewError(RuntimeError):
    """A review action that cannot be done; the message says why and what to do."""


@dataclass
class NodeResult:
    """What an approve or revert did to one node (`error` set when it was not done)."""

    path: str
    version: int | None = None
    error: str = ""
    undo: int | None = None  # after a revert: the version `memory restore` brings back to undo it


def record_run(
    working_dir: WorkingDir,
    run_id: str,
    *,
    review: bool,
    message: str,
    outcomes: list[UnitOutcome],
    recovered: list[Recovered],
) -> Changeset:
    """Save the changeset of a finished run (pending when its changes wait for approval)."""
    changeset = Changeset(
        id=run_id,
        time=dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        status=PENDING if review and any(o.ok and o.changed for o in outcomes) else APPLIED,
        message=message,
    )
    for o in outcomes:
        changeset.units.append(
            UnitRecord(
                o.unit.name, o.unit.bucket, o.unit.summary, list(o.unit.paths), o.ok,
                o.action, o.path, o.detail,
            )
        )  # fmt: skip
        if o.ok:
            changeset.nodes.append(
                NodeChange(
                    o.path, o.action, o.unit.name, _cards(o.after), o.before, o.after,
                    o.before_version, o.version,
                )
            )  # fmt: skip
    for r in recovered:
        changeset.nodes.append(
            NodeChange(r.path, r.action, "", _cards(r.after), r.before, r.after, None, r.version)
        )
    changesets.save(working_dir, changeset)
    return changeset


def _cards(text: str | None) -> list[str]:
    from remecli.knowledge.dream.digest import parse_node

    node = parse_node("digest/x/y.md", text) if text else None
    return [link for link in sources_links(node.body) if link.startswith("memory/")] if node else []


def _run(working_dir: WorkingDir, run_id: str) -> Changeset:
    changeset = changesets.load(working_dir, run_id)
    if changeset is None:
        raise ReviewError(f"no dream run {run_id!r}; `remecli dream --list` shows the runs")
    return changeset


def _current(writer: MemoryWriter, path: str) -> str | None:
    try:
        return (writer.root / path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None


def decide(
    working_dir: WorkingDir, writer: MemoryWriter, run_id: str, approve: bool
) -> list[NodeResult]:
    """Approve (write each proposed node still as the run saw it) or reject a pending run
    (every node dropped, nothing written: a result per node without a version)."""
    with dream_lock(working_dir):
        changeset = _run(working_dir, run_id)
        if changeset.status != PENDING:
            raise ReviewError(f"dream run {run_id} is {changeset.status}, not pending")
        if approve:
            results = [_approve_node(writer, run_id, node) for node in changeset.nodes]
        else:
            results = [NodeResult(node.path) for node in changeset.nodes]
        changeset.status = APPROVED if approve else REJECTED
        changesets.save(working_dir, changeset)
        return results


def _approve_node(writer: MemoryWriter, run_id: str, node: NodeChange) -> NodeResult:
    if node.after is None or node.after == node.before:
        return NodeResult(node.path)
    try:
        done = writer.write(
            node.path, node.after, source=f"dream {run_id} (approved)", allow_shrink=True,
            expected=node.before,
        )  # fmt: skip
    except ChangedMeanwhile:
        return NodeResult(node.path, error=f"{node.path} changed since the run; not written")
    node.after_version = done.version
    if node.before is not None and done.version is not None:
        prior = [v for v in writer.history(node.path) if v.version < done.version]
        node.before_version = prior[-1].version if prior and not prior[-1].deleted else None
    return NodeResult(node.path, done.version)


def revert(
    working_dir: WorkingDir, writer: MemoryWriter, run_id: str, path: str | None = None
) -> list[NodeResult]:
    """Put back what a node (or every node of the run) held before the run; each revert is a
    new version (undo it with `memory restore PATH VERSION`). A node changed since is left."""
    with dream_lock(working_dir):
        changeset = _run(working_dir, run_id)
        if changeset.status in (PENDING, REJECTED):
            raise ReviewError(
                f"dream run {run_id} is {changeset.status}: nothing of it was written"
            )
        if path is not None and changeset.node(path) is None:
            raise ReviewError(f"dream run {run_id} did not change {path}")
        nodes = [changeset.node(path)] if path is not None else changeset.nodes
        results = [_revert_node(writer, run_id, n) for n in nodes if n is not None]
        changesets.save(working_dir, changeset)
        return results


def _revert_node(writer: MemoryWriter, run_id: str, node: NodeChange) -> NodeResult:
    if node.reverted is not None:
        return NodeResult(node.path, error=f"{node.path} was already reverted")
    if node.after == node.before:
        return NodeResult(node.path)  # nothing was changed
    if _current(writer, node.path) != node.after:
        return NodeResult(
            node.path,
            error=f"{node.path} changed since the run; use `remecli memory history "
            f"{node.path}` and `memory restore` to pick a version",
        )
    source = f"dream revert of run {run_id}"
    version: int | None
    if node.before is None:
        removed = writer.remove(node.path, source=source)
        version = removed.version if removed else None
    else:
        try:
            if node.before_version is None:
                raise VersionNotFound(node.path)
            version = writer.restore(node.path, node.before_version, source=source).version
        except VersionNotFound:  # pruned from history: the changeset still holds the text
            version = writer.write(node.path, node.before, source=source, allow_shrink=True).version
    node.reverted = {
        "time": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "version": version,
    }
    return NodeResult(node.path, version, undo=node.after_version)
