"""`remecli dream`: the memory_dream operation from the shell, its outcome in one line."""

from __future__ import annotations

import asyncio
import datetime as dt
import sys

from remecli.config.settings import Settings


def parse_date(text: str) -> dt.date:
    """`YYYY-MM-DD` as a date; raises ValueError with a usable message."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"date must be YYYY-MM-DD, got {text!r}") from None


def dream_once(settings: Settings, day: dt.date | None = None) -> int:
    """Run one dream over the cards up to `day` (default: today); exit 0 when it completed."""
    return asyncio.run(_dream(settings, day))


async def _dream(settings: Settings, day: dt.date | None) -> int:
    from remecli.ops import JobError
    from remecli.ops.knowledge_jobs import DreamParams
    from remecli.surfaces.cli.job import one_shot

    _memory, runner = one_shot(settings, search=False)  # the cards and the digest: no index
    await runner.start(background=False)
    try:
        result = await runner.call(DreamParams(date=day))
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    finally:
        await runner.close(timeout=None)
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else 1


def review(settings: Settings, action: str, target: str = "") -> int:
    """`remecli dream --list / --show RUN / --revert RUN[:NODE] / --approve RUN / --reject RUN`."""
    return asyncio.run(_review(settings, action, target))


async def _review(settings: Settings, action: str, target: str) -> int:
    from remecli.ops import JobError
    from remecli.ops.dream_jobs import (
        ApproveParams,
        RejectParams,
        RevertParams,
        RunParams,
        RunsParams,
    )
    from remecli.surfaces.cli.job import one_shot

    decisions: dict[str, type[RevertParams | ApproveParams | RejectParams]] = {
        "revert": RevertParams,
        "approve": ApproveParams,
        "reject": RejectParams,
    }

    _memory, runner = one_shot(settings, search=False)
    await runner.start(background=False)
    try:
        if action == "list":
            data = (await runner.call(RunsParams.parse())).model_dump(mode="json")
            print(_runs_text(data["runs"]))
            return 0
        run_id, _, node = target.partition(":")
        if action == "show":
            shown = await runner.call(RunParams.parse(run_id=run_id))
            print(_run_text(shown.model_dump(mode="json")))
            return 0
        arguments: dict[str, object] = {"run_id": run_id}
        if action == "revert" and node:
            arguments["path"] = node
        decided = await runner.call(decisions[action].parse(**arguments))
        done = decided.model_dump(mode="json")
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    finally:
        await runner.close(timeout=None)
    print(done["message"])
    for item in done["nodes"]:
        if item.get("undo") is not None:
            undo = f"remecli memory restore {item['path']} {item['undo']}"
            print(f"  {item['path']}: reverted as version {item['version']} (undo: {undo})")
    return 1 if any(item["error"] for item in done["nodes"]) else 0


def _runs_text(runs: list[dict[str, object]]) -> str:
    if not runs:
        return "No dream runs recorded yet."
    lines = []
    for run in runs:
        nodes = run["nodes"] if isinstance(run["nodes"], list) else []
        lines.append(f"{run['id']}  {run['time']}  {run['outcome']:<15}  {run['changes']}")
        lines += [f"    {n}" for n in nodes]
    return "\n".join(lines)


def _run_text(run: dict[str, object]) -> str:
    lines = [f"Dream run {run['id']} ({run['time']}, {run['status']})", str(run["message"])]
    nodes = run["nodes"] if isinstance(run["nodes"], list) else []
    for node in nodes:
        mark = " (reverted)" if node["reverted"] else ""
        lines.append(f"\n{node['action']} {node['path']}{mark}")
        lines.append("  sources: " + (", ".join(node["sources"]) or "(none)"))
        before = node["before_version"] or "none (new)"
        after = node["after_version"] or "not written yet"
        lines.append(f"  versions: {before} -> {after}")
        for gone in node.get("supersessions") or []:
            held = (
                f"{gone['since']} to {gone['until']}" if gone["since"] else f"until {gone['until']}"
            )
            by = f" -> {gone['replaced_by']}" if gone["replaced_by"] else ""
            lines.append(f"  superseded: {gone['claim']} ({held}){by}")
        lines.append(node["diff"].rstrip("\n") or "  (no change)")
    return "\n".join(lines)
