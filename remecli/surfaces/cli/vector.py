"""`remecli memories summarize|retrieve|add|get|update|list|delete|delete-all`: vector memory
from the shell, each through its `memory_vector_*` operation (the ones MCP and HTTP serve).

    remecli memories add "Alice prefers tabs" --user alice
    remecli memories list --user alice --sort time_created --reverse --limit 10 --json
    remecli memories retrieve "code style" --user alice [--summary]     (search: the same)
    remecli memories summarize chat.json --user alice
    remecli memories update ID "new text"      remecli memories get ID      remecli memories delete ID…
    remecli memories delete-all --user alice --yes
    remecli memories import memories.jsonl --user alice     export all.jsonl     reindex

The usual `config=…` and `key=value` settings apply (working_dir, llm.*, search.embedding.*);
`--store pgvector --dsn postgresql://…` uses PostgreSQL instead of the embedded store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from remecli.config.settings import Settings

if TYPE_CHECKING:
    from pydantic import JsonValue

    from remecli.ops.registry import JobParams
    from remecli.vector import MemoryNode

log = logging.getLogger(__name__)


Action = Literal[
    "list",
    "add",
    "get",
    "update",
    "delete",
    "search",
    "retrieve",
    "summarize",
    "delete-all",
    "import",
    "export",
    "reindex",
]
BULK = ("import", "export", "reindex")


def params_class(action: str) -> type[JobParams]:
    """The params of the operation that does `action` (each names its one `memory_vector_*`
    job: search and retrieve are both memory_vector_retrieve)."""
    from remecli.ops import vector_bulk_jobs as bulk
    from remecli.ops import vector_ops as one

    classes: dict[str, type[JobParams]] = {
        "list": one.ListParams,
        "add": one.AddParams,
        "get": one.IdParams,
        "update": one.UpdateParams,
        "delete": one.DeleteParams,
        "search": one.RetrieveParams,
        "retrieve": one.RetrieveParams,
        "summarize": one.SummarizeParams,
        "delete-all": one.DeleteAllParams,
        "import": bulk.ImportParams,
        "export": bulk.ExportParams,
        "reindex": bulk.ReindexParams,
    }
    return classes[action]


@dataclass(frozen=True)
class Store:
    """Where vector memory lives (None: as `memory.vector.store` says)."""

    backend: Literal["local", "pgvector"] | None = None
    dsn: str = ""
    table: str = "reme_memories"


@dataclass(frozen=True)
class MemoriesRequest:
    """One `remecli memories ACTION …`: the action, its arguments and whose memory."""

    action: Action
    args: tuple[str, ...] = ()
    user: str | None = None
    task: str | None = None
    tool: str | None = None
    memory_type: str | None = None
    filters: dict[str, Any] = field(default_factory=dict)
    limit: int | None = None
    sort: str | None = None
    reverse: bool = False
    when_to_use: str | None = None
    summary: bool = False
    messages: tuple[dict[str, Any], ...] = ()
    confirm: bool = False
    batch_size: int | None = None


def _typed(text: str) -> JsonValue:
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text
    return value


def parse_filters(items: list[str]) -> dict[str, JsonValue]:
    """`KEY=VALUE` (JSON-typed: 3, true, "x") or `KEY=LO..HI` (either end may be empty)."""
    filters: dict[str, JsonValue] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--filter needs KEY=VALUE or KEY=LO..HI, got {item!r}")
        if ".." in value:
            lo, hi = value.split("..", 1)
            filters[key] = [_typed(lo) if lo else None, _typed(hi) if hi else None]
        else:
            filters[key] = _typed(value)
    return filters


def vector_settings(settings: Settings, store: Store) -> Settings:
    """The settings with vector memory on (and the store the options name)."""
    changes: dict[str, object] = {"memory.vector.enabled": True}
    if store.backend == "pgvector":
        changes["memory.vector.store"] = {
            "backend": "pgvector",
            "dsn": store.dsn,
            "table": store.table,
        }
    elif store.backend == "local":
        changes["memory.vector.store"] = {"backend": "local"}
    return settings.with_changes(changes)


def _need(options: MemoriesRequest, count: str, what: str) -> None:
    n = len(options.args)
    if (count == "1" and n != 1) or (count == "+" and n < 1) or (count == "2" and n != 2):
        raise ValueError(f"remecli memories {options.action} needs {what}")


def job_params(options: MemoriesRequest) -> JobParams:
    """The typed params of the operation that does `options.action` (InvalidParams names it)."""
    return params_class(options.action).parse(**_arguments(options))


def _arguments(options: MemoriesRequest) -> dict[str, object]:
    """The arguments of the operation that does `options.action`."""
    who = {"user_name": options.user, "task_name": options.task, "tool_name": options.tool}
    action = options.action
    if action == "list":
        return {
            **who,
            "memory_type": options.memory_type,
            "filters": options.filters or None,
            "limit": options.limit or 100,
            "sort_key": options.sort or "time_created",
            "reverse": options.reverse if options.sort else True,
        }
    if action == "add":
        _need(options, "1", 'the memory text, e.g. "Alice prefers tabs" --user alice')
        if sum(1 for v in who.values() if v) != 1:
            raise ValueError("add_memory needs exactly one of user_name, task_name, tool_name")
        return {"memory_content": options.args[0], "when_to_use": options.when_to_use or "", **who}
    if action == "get":
        _need(options, "1", "one memory id")
        return {"memory_id": options.args[0]}
    if action == "update":
        _need(options, "2", 'a memory id and the new text, e.g. update ID "new text"')
        return {
            "memory_id": options.args[0],
            "memory_content": options.args[1],
            "when_to_use": options.when_to_use,
            **who,
        }
    if action == "delete":
        _need(options, "+", "one or more memory ids")
        return {"memory_id": list(options.args)}
    if action == "delete-all":
        if not options.confirm:
            raise ValueError("delete-all deletes memories for good: add --yes to go on")
        return {"confirm": True, **who}
    if action == "summarize":
        if not options.messages:
            raise ValueError("summarize needs a JSON list of messages (a file, or - for stdin)")
        return {"messages": list(options.messages), **who}
    _need(options, "1", f'a query, e.g. {action} "code style" --user alice')
    return {
        "query": options.args[0],
        **who,
        "top_k": options.limit or 10,
        "filters": options.filters or None,
        "summarize": options.summary,
    }


def _node(data: dict[str, Any]) -> MemoryNode:
    from remecli.vector import MemoryNode

    known = MemoryNode.__dataclass_fields__
    return MemoryNode(**{k: v for k, v in data.items() if k in known})


def _anyone_has(key: str, result: dict[str, Any]) -> bool:
    """True when a listed memory has field or metadata key `key` (or nothing was listed)."""
    listed: list[dict[str, Any]] = result["memories"]
    name = key.removeprefix("metadata.")
    return not listed or any(
        (key == name and key in node) or name in node.get("metadata", {}) for node in listed
    )


def render(action: str, result: dict[str, Any], as_json: bool) -> str:
    """Text (one memory per line) or JSON of an operation's result."""
    if as_json:
        data: Any = result
        if "memory" in result:
            data = result["memory"]
        elif action == "list":
            data = result["memories"]
        elif action == "summarize":
            data = result["changed"]
        elif action in ("search", "retrieve"):
            data = {k: result[k] for k in ("query", "summary", "memories")}
        return json.dumps(data, ensure_ascii=False, indent=2)
    if "deleted" in result:
        count = result["deleted"]
        return f"deleted {count} memor{'y' if count == 1 else 'ies'}"
    if "memory" in result:
        node = _node(result["memory"])
        return f"{node.memory_id}  {node}"
    if action == "summarize":
        lines = [f"{n['action']:<6} {n['memory_id']}  {_node(n)}" for n in result["changed"]]
        return "\n".join(lines) or "(nothing changed)"
    nodes = [_node(n) for n in result["memories"]]
    lines = [f"{n.memory_id}  {n}" for n in nodes]
    if action in ("search", "retrieve"):
        lines = ([result["summary"], ""] if result.get("summary") else []) + lines
        return "\n".join(lines) or "(no memory found)"
    return "\n".join(lines) or "(no memories)"


async def run_job(settings: Settings, params: JobParams) -> dict[str, Any]:
    """Run the vector operation taking `params` on a runtime of `settings` (its vector memory
    only is opened); its JSON answer."""
    [result] = await run_jobs(settings, [params])
    return result


async def run_jobs(settings: Settings, calls: Iterable[JobParams]) -> list[dict[str, Any]]:
    """Run the vector operation of each params of `calls`, on one runtime; their JSON answers
    (under the same size limit as a client's)."""
    from remecli.ops import JobRunner

    runner = JobRunner.for_vector_memory(settings)  # never started: its vector memory only
    try:
        return [await runner.answer(params) for params in calls]
    finally:
        await runner.memory.vector.close()


def run_bulk(settings: Settings, request: MemoriesRequest, as_json: bool = False) -> str:
    """import (a JSONL file in parts), export (to a JSONL file) or reindex; what to print (a
    line, or with `as_json` the totals as JSON)."""
    from remecli.surfaces.cli import vector_bulk as bulk

    params = params_class(request.action)
    if request.action == "reindex":
        sizes = {"batch_size": request.batch_size} if request.batch_size else {}
        done = asyncio.run(run_job(settings, params.parse(**sizes)))
        return json.dumps(done) if as_json else bulk.summary("reindex", done)
    _need(request, "1", f"a JSONL file, e.g. {request.action} memories.jsonl")
    who = {"user_name": request.user, "task_name": request.task, "tool_name": request.tool}
    path = request.args[0]
    if request.action == "export":
        arguments = {k: v for k, v in {**who, "memory_type": request.memory_type}.items() if v}
        result = asyncio.run(run_job(settings, params.parse(**arguments)))
        bulk.write_jsonl(Path(path), result["memories"])
        if as_json:
            return json.dumps({"count": result["count"], "path": path})
        return bulk.summary("export", result, path)
    with sys.stdin if path == "-" else open(path, encoding="utf-8") as stream:
        calls = (
            params.parse(**bulk.import_arguments(part, who, request.batch_size))
            for part in bulk.parts(bulk.read_jsonl(stream), bulk.IMPORT_PART)
        )
        results = asyncio.run(run_jobs(settings, calls))
    total: dict[str, Any] = {
        k: sum(r[k] for r in results) for k in ("count", "added", "already_stored")
    }
    if as_json:
        total["memory_ids"] = [i for r in results for i in r["memory_ids"]]
        return json.dumps(total)
    return bulk.summary("import", total)


def memories(settings: Settings, request: MemoriesRequest, store: Store, *, as_json: bool) -> int:
    """Run one `remecli memories` action and print its result; returns the exit code."""
    from remecli.config.logs import setup_logging

    setup_logging(settings)

    from remecli.ops import JobError

    try:
        if request.action in BULK:
            print(run_bulk(vector_settings(settings, store), request, as_json))
            return 0
        params = job_params(request)
        result = asyncio.run(run_job(vector_settings(settings, store), params))
    except (ValueError, LookupError, RuntimeError, JobError, OSError) as exc:
        log.debug("memories %s failed", request.action, exc_info=True)
        print(f"remecli memories: {exc}", file=sys.stderr)
        return 1
    if request.action == "list" and request.sort and not _anyone_has(request.sort, result):
        print(
            f"remecli memories list: no memory listed has {request.sort!r} (a field such as "
            "time_created, or a metadata key): check --sort",
            file=sys.stderr,
        )
        return 2
    print(render(request.action, result, as_json))
    wanted = len(set(request.args)) if request.action == "delete" else 0
    missing = wanted - result.get("deleted", 0) if wanted else 0
    if missing > 0:  # `remecli memories delete nosuchid`: say so, and fail
        print(
            f"remecli memories: {missing} of the ids matched no memory; "
            "`remecli memories list` shows the ids",
            file=sys.stderr,
        )
        return 1
    return 0
