"""`remecli memories list|add|get|update|delete|search`: vector memory from the shell.

    remecli memories add "Alice prefers tabs" --user alice
    remecli memories list --user alice --sort time_created --reverse --limit 10 --json
    remecli memories search "code style" --user alice [--summary]
    remecli memories update ID "new text"      remecli memories get ID      remecli memories delete ID…

The usual `config=…` and `key=value` settings apply (working_dir, llm.*, search.embedding.*);
`--store pgvector --dsn postgresql://…` uses PostgreSQL instead of the embedded store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
from typing import Any

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
log = logging.getLogger(__name__)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit code 2
        raise ValueError(message)


def build_parser() -> argparse.ArgumentParser:
    """The `memories` argument parser."""
    parser = _Parser(prog="remecli memories", description="Vector memory from the shell.")
    parser.add_argument("action", choices=["list", "add", "get", "update", "delete", "search"])
    parser.add_argument("args", nargs="*", help="content, query or memory ids")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--user", help="personal memory of this user")
    who.add_argument("--task", help="task memory of this task")
    who.add_argument("--tool", help="tool memory of this tool")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--limit", type=int, default=None, help="at most N memories")
    parser.add_argument("--sort", default=None, help="sort key (any field or metadata key)")
    parser.add_argument("--reverse", action="store_true", help="sort descending")
    parser.add_argument("--type", dest="memory_type", default=None, help="e.g. history")
    parser.add_argument(
        "--filter", action="append", default=[], metavar="KEY=VALUE|KEY=LO..HI", help="repeatable"
    )
    parser.add_argument("--when-to-use", default=None, help="when the memory helps")
    parser.add_argument("--summary", action="store_true", help="search: add an LLM summary")
    parser.add_argument("--store", choices=["local", "pgvector"], default="local")
    parser.add_argument("--dsn", default="", help="PostgreSQL DSN for --store pgvector")
    parser.add_argument("--table", default="reme_memories", help="pgvector table name")
    return parser


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


def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """(settings `key=value` items, everything else); nothing after `--` is a setting."""
    settings: list[str] = []
    rest: list[str] = []
    for index, item in enumerate(argv):
        if item == "--":
            rest += argv[index:]
            break
        (settings if _SETTING.match(item) else rest).append(item)
    return settings, rest


def make_reme(settings: Any, options: argparse.Namespace) -> Any:
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
    store: dict[str, Any] = {"backend": options.store}
    if options.store == "pgvector":
        store.update(dsn=options.dsn, table=options.table)
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
        default_vector_store_config=store,
        language=settings.language,
    )


def _need(options: argparse.Namespace, count: str, what: str) -> None:
    n = len(options.args)
    if (count == "1" and n != 1) or (count == "+" and n < 1) or (count == "2" and n != 2):
        raise ValueError(f"remecli memories {options.action} needs {what}")


async def run_action(reme: Any, options: argparse.Namespace) -> Any:
    """Do the action; the result to print (nodes, a node, a count or a retrieval)."""
    who = {"user_name": options.user, "task_name": options.task, "tool_name": options.tool}
    action = options.action
    if action == "list":
        return await reme.list_memory(
            **who,
            memory_type=options.memory_type,
            filters=parse_filters(options.filter),
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
        filters=parse_filters(options.filter),
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


def run(argv: list[str]) -> int:
    """Entry of `remecli memories …`; returns the exit code."""
    from remecli.config import ConfigError, load_settings

    settings_args, rest = split_argv(argv)
    try:
        options = build_parser().parse_args(rest)
        settings = load_settings(settings_args)
    except (ValueError, ConfigError) as exc:
        print(f"remecli memories: {exc}", file=sys.stderr)
        return 2
    from remecli.config.logs import setup_logging

    setup_logging(settings)

    async def go() -> Any:
        reme = make_reme(settings, options)
        async with reme:
            return await run_action(reme, options)

    try:
        result = asyncio.run(go())
    except (ValueError, LookupError, RuntimeError) as exc:
        log.debug("memories %s failed", options.action, exc_info=True)
        print(f"remecli memories: {exc}", file=sys.stderr)
        return 1
    print(render(result, options.json))
    return 0
