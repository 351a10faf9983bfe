"""`remecli memories summarize|retrieve|add|get|update|list|delete|delete-all` (and `search`, the
same as retrieve): vector memory from the shell, through the `memory_vector_*` operations.

The usual `config=…` and `key=value` settings apply (working_dir, llm.*, search.embedding.*);
`--store pgvector --dsn postgresql://…` uses PostgreSQL instead of the embedded store.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, Literal, TypeVar

import click

from remecli.surfaces.cli.base import CommandGroup, SettingsCommand, WholeNumber

if TYPE_CHECKING:
    from pydantic import JsonValue

    from remecli.config.settings import Settings
    from remecli.surfaces.cli.vector import MemoriesRequest


F = TypeVar("F", bound=Callable[..., object])


def _common(build: Callable[..., MemoriesRequest]) -> Callable[..., int]:
    """Make `build` (its own arguments -> the request) a command callback that also takes whose
    memory (--user, --task, --tool), --json and the store, the options every action shares."""

    @functools.wraps(build)
    def command(
        *,
        user: str | None,
        task: str | None,
        tool: str | None,
        as_json: bool,
        store: str | None,
        dsn: str,
        table: str,
        setting_args: list[str],
        **own: Any,
    ) -> int:
        settings = _settings(setting_args, user, task, tool)
        if isinstance(settings, int):
            return settings
        request = dataclasses.replace(build(**own), user=user, task=task, tool=tool)
        return _run(settings, request, store, dsn, table, as_json)

    shared = [
        parameter
        for name, parameter in inspect.signature(command, follow_wrapped=False).parameters.items()
        if name != "own"
    ]
    own_parameters = list(inspect.signature(build).parameters.values())
    command.__signature__ = inspect.signature(build).replace(  # type: ignore[attr-defined]
        parameters=own_parameters + shared, return_annotation=int
    )
    decorators = (
        click.option("--user", help="personal memory of this user"),
        click.option("--task", help="task memory of this task"),
        click.option("--tool", help="tool memory of this tool"),
        click.option("--json", "as_json", is_flag=True, help="print JSON"),
        click.option(
            "--store",
            type=click.Choice(["local", "pgvector"]),
            default=None,
            help="where the memories live (default: memory.vector.store, else local)",
        ),
        click.option("--dsn", default="", help="PostgreSQL DSN for --store pgvector"),
        click.option("--table", default="reme_memories", show_default=True, help="pgvector table"),
    )
    for decorate in reversed(decorators):
        command = decorate(command)
    return command


def _settings(
    setting_args: list[str], user: str | None, task: str | None, tool: str | None
) -> Settings | int:
    """The settings once whose memory is clear (at most one of --user, --task, --tool)."""
    from remecli.surfaces.cli.start import settings_or_exit_code

    given = [
        f"--{name}" for name, value in (("user", user), ("task", task), ("tool", tool)) if value
    ]
    if len(given) > 1:
        raise click.UsageError(f"argument {given[1]}: not allowed with argument {given[0]}")
    return settings_or_exit_code(setting_args, "remecli memories")


def _filters(items: tuple[str, ...]) -> dict[str, JsonValue]:
    from remecli.surfaces.cli.vector import parse_filters

    try:
        return parse_filters(list(items))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _run(
    settings: Settings,
    request: MemoriesRequest,
    store: str | None,
    dsn: str,
    table: str,
    as_json: bool,
) -> int:
    from remecli.surfaces.cli.vector import Store, memories

    backend: Literal["local", "pgvector"] | None = (
        "pgvector" if store == "pgvector" or dsn else "local" if store == "local" else None
    )
    return memories(settings, request, Store(backend, dsn, table), as_json=as_json)


@click.group(cls=CommandGroup)
def memories() -> None:
    """Vector memory: personal, task and tool memories.

    \b
    remecli memories add "Alice prefers tabs" --user alice
    remecli memories list --user alice --sort time_created --reverse --limit 10 --json
    remecli memories retrieve "code style" --user alice [--summary]
    remecli memories summarize chat.json --user alice
    remecli memories update ID "new text"
    remecli memories get ID
    remecli memories delete ID...
    remecli memories delete-all --user alice --yes
    remecli memories import memories.jsonl --user alice
    remecli memories export all.jsonl
    remecli memories reindex
    """


@memories.command("list", cls=SettingsCommand)
@_common
@click.option("--type", "memory_type", help="e.g. history")
@click.option(
    "--filter", "filters", multiple=True, metavar="KEY=VALUE|KEY=LO..HI", help="repeatable"
)
@click.option("--limit", type=WholeNumber(), help="at most N memories")
@click.option("--sort", help="sort key (any field or metadata key)")
@click.option("--reverse", is_flag=True, help="sort descending")
def list_memories(
    memory_type: str | None,
    filters: tuple[str, ...],
    limit: int | None,
    sort: str | None,
    reverse: bool,
) -> MemoriesRequest:
    """List memories (of one user, task or tool)."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest(
        "list",
        (),
        memory_type=memory_type,
        filters=_filters(filters),
        limit=limit,
        sort=sort,
        reverse=reverse,
    )


@memories.command(cls=SettingsCommand)
@click.argument("text")
@_common
@click.option("--when-to-use", help="when the memory helps")
def add(text: str, when_to_use: str | None) -> MemoriesRequest:
    """Add a memory: TEXT for one of --user, --task or --tool."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("add", (text,), when_to_use=when_to_use)


@memories.command(cls=SettingsCommand)
@click.argument("memory_id", metavar="ID")
@_common
def get(memory_id: str) -> MemoriesRequest:
    """Show one memory."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("get", (memory_id,))


@memories.command(cls=SettingsCommand)
@click.argument("memory_id", metavar="ID")
@click.argument("text")
@_common
@click.option("--when-to-use", help="when the memory helps")
def update(memory_id: str, text: str, when_to_use: str | None) -> MemoriesRequest:
    """Replace the text of memory ID."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("update", (memory_id, text), when_to_use=when_to_use)


@memories.command(cls=SettingsCommand)
@click.argument("memory_ids", nargs=-1, required=True, metavar="ID...")
@_common
def delete(memory_ids: tuple[str, ...]) -> MemoriesRequest:
    """Delete memories by id."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("delete", memory_ids)


def _retrieve(
    action: str, query: str, filters: tuple[str, ...], limit: int | None, summary: bool
) -> MemoriesRequest:
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest(
        "retrieve" if action == "retrieve" else "search",
        (query,),
        filters=_filters(filters),
        limit=limit,
        summary=summary,
    )


_QUERY_OPTIONS = (
    click.option(
        "--filter", "filters", multiple=True, metavar="KEY=VALUE|KEY=LO..HI", help="repeatable"
    ),
    click.option("--limit", type=WholeNumber(), help="at most N memories (default 10)"),
    click.option("--summary", is_flag=True, help="add an LLM summary"),
)


def _query_options(command: F) -> F:
    for decorate in reversed(_QUERY_OPTIONS):
        command = decorate(command)
    return command


@memories.command(cls=SettingsCommand)
@click.argument("query")
@_common
@_query_options
def retrieve(
    query: str, filters: tuple[str, ...], limit: int | None, summary: bool
) -> MemoriesRequest:
    """Retrieve the memories closest to QUERY."""
    return _retrieve("retrieve", query, filters, limit, summary)


@memories.command(cls=SettingsCommand)
@click.argument("query")
@_common
@_query_options
def search(
    query: str, filters: tuple[str, ...], limit: int | None, summary: bool
) -> MemoriesRequest:
    """Retrieve the memories closest to QUERY (the same as retrieve)."""
    return _retrieve("search", query, filters, limit, summary)


@memories.command(cls=SettingsCommand)
@click.argument("messages_file", metavar="FILE", type=click.File("r", encoding="utf-8"))
@_common
def summarize(messages_file: IO[str]) -> MemoriesRequest:
    """Turn a conversation (FILE: a JSON list of {"role", "content"} messages; - = stdin) into
    memories of --user, --task or --tool."""
    import json

    from remecli.surfaces.cli.vector import MemoriesRequest

    try:
        messages = json.load(messages_file)
    except ValueError as exc:
        raise click.UsageError(f"FILE is not JSON: {exc}") from None
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise click.UsageError('FILE must hold a JSON list of {"role", "content"} messages')
    return MemoriesRequest("summarize", (), messages=tuple(messages))


@memories.command("delete-all", cls=SettingsCommand)
@_common
@click.option("--yes", "confirm", is_flag=True, help="yes, delete them for good")
def delete_all(confirm: bool) -> MemoriesRequest:
    """Delete every memory (of --user, --task or --tool)."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("delete-all", (), confirm=confirm)


@memories.command("import", cls=SettingsCommand)
@click.argument("path", metavar="FILE")
@_common
@click.option("--batch-size", type=WholeNumber(), help="texts per embedding call (default 256)")
def import_memories(path: str, batch_size: int | None) -> MemoriesRequest:
    """Add many memories from FILE (JSONL: one {"content": …} object per line; - = stdin),
    through the store's bulk path. Whose memory: --user / --task / --tool for all, or
    user_name / task_name / tool_name (or memory_type + memory_target) per line; any field of
    `add` and `metadata` per line. What `export` writes imports as it was."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("import", (path,), batch_size=batch_size)


@memories.command("export", cls=SettingsCommand)
@click.argument("path", metavar="FILE")
@_common
@click.option("--type", "memory_type", help="only this type, e.g. history")
def export_memories(path: str, memory_type: str | None) -> MemoriesRequest:
    """Write every memory (of --user, --task or --tool) to FILE as JSONL, oldest first (0600)."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("export", (path,), memory_type=memory_type)


@memories.command(cls=SettingsCommand)
@_common
@click.option("--batch-size", type=WholeNumber(), help="texts per embedding call (default 256)")
def reindex(batch_size: int | None) -> MemoriesRequest:
    """Embed every memory again with the configured embedding model (after changing it to one
    of the same dimensions) and rebuild the index. Ids, texts and times stay."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest("reindex", (), batch_size=batch_size)
