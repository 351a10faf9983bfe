"""`remecli memories list|add|get|update|delete|search`: vector memory from the shell.

The usual `config=…` and `key=value` settings apply (working_dir, llm.*, search.embedding.*);
`--store pgvector --dsn postgresql://…` uses PostgreSQL instead of the embedded store.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import click

from remecli.surfaces.cli.base import CommandGroup, SettingsCommand, WholeNumber

if TYPE_CHECKING:
    from remecli.config.settings import Settings
    from remecli.surfaces.cli.vector import MemoriesRequest


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
        store: str,
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
            default="local",
            show_default=True,
            help="where the memories live",
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


def _filters(items: tuple[str, ...]) -> dict[str, Any]:
    from remecli.surfaces.cli.vector import parse_filters

    try:
        return parse_filters(list(items))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def _run(
    settings: Settings, request: MemoriesRequest, store: str, dsn: str, table: str, as_json: bool
) -> int:
    from remecli.surfaces.cli.vector import Store, memories

    backend: Literal["local", "pgvector"] = "pgvector" if store == "pgvector" else "local"
    return memories(settings, request, Store(backend, dsn, table), as_json=as_json)


@click.group(cls=CommandGroup)
def memories() -> None:
    """Vector memory: personal, task and tool memories.

    \b
    remecli memories add "Alice prefers tabs" --user alice
    remecli memories list --user alice --sort time_created --reverse --limit 10 --json
    remecli memories search "code style" --user alice [--summary]
    remecli memories update ID "new text"
    remecli memories get ID
    remecli memories delete ID...
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


@memories.command(cls=SettingsCommand)
@click.argument("query")
@_common
@click.option(
    "--filter", "filters", multiple=True, metavar="KEY=VALUE|KEY=LO..HI", help="repeatable"
)
@click.option("--limit", type=WholeNumber(), help="at most N memories (default 10)")
@click.option("--summary", is_flag=True, help="add an LLM summary")
def search(
    query: str, filters: tuple[str, ...], limit: int | None, summary: bool
) -> MemoriesRequest:
    """Retrieve the memories closest to QUERY."""
    from remecli.surfaces.cli.vector import MemoriesRequest

    return MemoriesRequest(
        "search",
        (query,),
        filters=_filters(filters),
        limit=limit,
        summary=summary,
    )
