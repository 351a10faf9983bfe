"""`remecli memories list|add|get|update|delete|search`: vector memory from the shell.

    remecli memories add "Alice prefers tabs" --user alice
    remecli memories list --user alice --sort time_created --reverse --limit 10 --json
    remecli memories search "code style" --user alice [--summary]
    remecli memories update ID "new text"      remecli memories get ID      remecli memories delete ID…

The usual `config=…` and `key=value` settings apply (working_dir, llm.*, search.embedding.*);
`--store pgvector --dsn postgresql://…` uses PostgreSQL instead of the embedded store.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from remecli.config.settings import Settings

log = logging.getLogger(__name__)


Action = Literal["list", "add", "get", "update", "delete", "search"]
ACTIONS: tuple[Action, ...] = ("list", "add", "get", "update", "delete", "search")


@dataclass(frozen=True)
class Store:
    """Where vector memory lives: the embedded store, or PostgreSQL with pgvector."""

    backend: Literal["local", "pgvector"] = "local"
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


def _typed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_filters(items: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` (JSON-typed: 3, true, "x") or `KEY=LO..HI` (either end may be empty)."""
    filters: dict[str, Any] = {}
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


def make_reme(settings: Settings, store: Store) -> Any:
    """A ReMe configured from remecli settings and the command-line options."""
    from remecli.config.locations import Locations
    from remecli.vector import ReMe

    emb = settings.search.embedding
    if emb.backend == "none":
        raise ValueError("vector memory needs embeddings: set search.embedding.backend=auto")
    backend = (
        "openai" if emb.backend == "api" or (emb.backend == "auto" and emb.api_key) else "local"
    )
    embedding: dict[str, Any] = {"backend": backend}
    if backend == "openai":
        embedding.update(api_key=emb.api_key, base_url=emb.base_url, model_name=emb.model_name)
        if emb.dimensions:
            embedding["dimensions"] = emb.dimensions
    store_config: dict[str, Any] = {"backend": store.backend}
    if store.backend == "pgvector":
        store_config.update(dsn=store.dsn, table=store.table)
    llm = settings.llm
    return ReMe(
        working_dir=Locations.from_settings(settings).vector_dir,  # the assistant's store too
        default_llm_config={
            "base_url": llm.base_url,
            "api_key": llm.api_key,
            "model_name": llm.model_name,
            "timeout": llm.timeout,
            "max_retries": llm.max_retries,
        },
        default_embedding_model_config=embedding,
        default_vector_store_config=store_config,
        language=settings.language,
    )


def _need(options: MemoriesRequest, count: str, what: str) -> None:
    n = len(options.args)
    if (count == "1" and n != 1) or (count == "+" and n < 1) or (count == "2" and n != 2):
        raise ValueError(f"remecli memories {options.action} needs {what}")


async def run_action(reme: Any, options: MemoriesRequest) -> Any:
    """Do the action; the result to print (nodes, a node, a count or a retrieval)."""
    who = {"user_name": options.user, "task_name": options.task, "tool_name": options.tool}
    action = options.action
    if action == "list":
        return await reme.list_memory(
            **who,
            memory_type=options.memory_type,
            filters=options.filters,
            limit=options.limit,
            sort_key=options.sort,
            reverse=options.reverse,
        )
    if action == "add":
        _need(options, "1", 'the memory text, e.g. "Alice prefers tabs" --user alice')
        return await reme.add_memory(
            memory_content=options.args[0], when_to_use=options.when_to_use or "", **who
        )
    if action == "get":
        _need(options, "1", "one memory id")
        node = await reme.get_memory(options.args[0])
        if node is None:
            raise LookupError(f"no memory with id {options.args[0]!r}")
        return node
    if action == "update":
        _need(options, "2", 'a memory id and the new text, e.g. update ID "new text"')
        return await reme.update_memory(
            options.args[0], memory_content=options.args[1], when_to_use=options.when_to_use, **who
        )
    if action == "delete":
        _need(options, "+", "one or more memory ids")
        return {"deleted": await reme.delete_memory(list(options.args))}
    _need(options, "1", 'a query, e.g. search "code style" --user alice')
    return await reme.retrieve_memory(
        options.args[0],
        **who,
        top_k=options.limit or 10,
        filters=options.filters,
        summarize=options.summary,
    )


def render(result: Any, as_json: bool) -> str:
    """Text (one memory per line) or JSON."""
    from remecli.vector import MemoryNode, RetrievalResult

    if as_json:
        if isinstance(result, list | MemoryNode | RetrievalResult):
            items = result if isinstance(result, list) else [result]
            data: Any = (
                [n.to_dict() for n in items] if isinstance(result, list) else result.to_dict()
            )
        else:
            data = result
        return json.dumps(data, ensure_ascii=False, indent=2)
    if isinstance(result, dict):
        return f"deleted {result['deleted']} memor{'y' if result['deleted'] == 1 else 'ies'}"
    if isinstance(result, RetrievalResult):
        lines = ([result.summary, ""] if result.summary else []) + [
            f"{n.memory_id}  {n}" for n in result.nodes
        ]
        return "\n".join(lines) or "(no memory found)"
    nodes = result if isinstance(result, list) else [result]
    return "\n".join(f"{n.memory_id}  {n}" for n in nodes) or "(no memories)"


def memories(settings: Settings, request: MemoriesRequest, store: Store, *, as_json: bool) -> int:
    """Run one `remecli memories` action and print its result; returns the exit code."""
    from remecli.config.logs import setup_logging

    setup_logging(settings)

    async def go() -> Any:
        reme = make_reme(settings, store)
        async with reme:
            return await run_action(reme, request)

    try:
        result = asyncio.run(go())
    except (ValueError, LookupError, RuntimeError) as exc:
        log.debug("memories %s failed", request.action, exc_info=True)
        print(f"remecli memories: {exc}", file=sys.stderr)
        return 1
    print(render(result, as_json))
    return 0
