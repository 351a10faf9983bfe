"""The commands over the Markdown memory: sessions, search, reindex, links, memory history and
restore, dream, ingest. Each imports its implementation only when it runs."""

from __future__ import annotations

import datetime as dt
import sys
from typing import TYPE_CHECKING, cast

import click

from remecli.surfaces.cli.base import CommandGroup, SettingsCommand, WholeNumber

if TYPE_CHECKING:
    from remecli.surfaces.cli.links import Direction

DATE = click.DateTime(formats=["%Y-%m-%d"])


@click.command(cls=SettingsCommand)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def sessions(as_json: bool, setting_args: list[str]) -> int:
    """Saved conversations (id, start, last activity, first line), most recent first.

    \b
    remecli sessions
    remecli sessions --json
    """
    from remecli.surfaces.cli.sessions import print_sessions
    from remecli.surfaces.cli.start import settings_or_exit_code

    settings = settings_or_exit_code(setting_args)
    if isinstance(settings, int):
        return settings
    return print_sessions(settings, as_json=as_json)


@click.command(cls=SettingsCommand)
@click.argument("query")
@click.option("--json", "as_json", is_flag=True, help="print the hits as JSON (with their links)")
@click.option("--max", "max_results", type=WholeNumber(), help="at most N hits")
@click.option("--min-score", type=float, help="drop hits scoring below X")
@click.option(
    "--source",
    type=click.Choice(["notes", "transcripts", "all"]),
    help="what to search (default: all)",
)
@click.option(
    "--since", type=DATE, metavar="YYYY-MM-DD", help="only notes dated on or after YYYY-MM-DD"
)
@click.option(
    "--until", type=DATE, metavar="YYYY-MM-DD", help="only notes dated on or before YYYY-MM-DD"
)
@click.option(
    "--project",
    metavar="NAME",
    help="only memory recorded in project NAME (default: any; the current one ranks higher)",
)
@click.option(
    "--as-of",
    type=DATE,
    metavar="YYYY-MM-DD",
    help="what was true on YYYY-MM-DD: timed claims valid then rank first (default: today)",
)
def search(
    query: str,
    as_json: bool,
    max_results: int | None,
    min_score: float | None,
    source: str | None,
    since: dt.datetime | None,
    until: dt.datetime | None,
    project: str | None,
    as_of: dt.datetime | None,
    setting_args: list[str],
) -> int:
    """Search notes and past conversations.

    \b
    remecli search "how do we deploy" --json --max 5
    remecli search "deploy" --source transcripts --since 2025-01-01
    remecli search "deploy" --project shop
    remecli search "where does Alice live" --as-of 2025-06-01
    """
    from pydantic import ValidationError

    from remecli.ops.search_jobs import SearchRequest
    from remecli.surfaces.cli.search import search as run_search
    from remecli.surfaces.cli.start import settings_and_working_dir

    if not query.strip():
        raise click.UsageError("remecli search needs a query")
    started = settings_and_working_dir(setting_args)
    if isinstance(started, int):
        return started
    asked = {"max_results": max_results, "min_score": min_score, "source": source}
    days = {"since": _day(since), "until": _day(until), "as_of": _day(as_of)}
    try:
        request = SearchRequest.model_validate(
            {"query": query, "project": project, **asked, **days}
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        print(f"remecli search: {problems}", file=sys.stderr)
        return 2
    return run_search(*started, request, as_json=as_json)


def _day(value: dt.datetime | None) -> str | None:
    """A `--since`/`--until` date as YYYY-MM-DD (click gives a datetime)."""
    return None if value is None else f"{value:%Y-%m-%d}"


@click.command(cls=SettingsCommand)
def reindex(setting_args: list[str]) -> int:
    """Rebuild the derived index and link graph from the Markdown files."""
    from remecli.surfaces.cli.search import reindex as run_reindex
    from remecli.surfaces.cli.start import settings_and_working_dir

    started = settings_and_working_dir(setting_args)
    return started if isinstance(started, int) else run_reindex(*started)


@click.command(cls=SettingsCommand)
@click.argument("path", required=False)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--depth", type=WholeNumber(), default=1, show_default=True, help="hops to follow")
@click.option(
    "--direction", type=click.Choice(["in", "out", "both"]), default="both", show_default=True
)
@click.option("--rename", metavar="NEW", help="move the note to NEW and retarget every link")
@click.option("--delete", is_flag=True, help="remove the note (kept in its history)")
@click.option("--dangling", is_flag=True, help="every link that points nowhere")
@click.option("--rebuild", is_flag=True, help="parse every note again")
def links(
    path: str | None,
    as_json: bool,
    depth: int,
    direction: str,
    rename: str | None,
    delete: bool,
    dangling: bool,
    rebuild: bool,
    setting_args: list[str],
) -> int:
    """What a note links to and what links to it.

    PATH is a note relative to the working dir, a path to it, or a note name.

    \b
    remecli links MEMORY.md --json --depth 2 --direction out
    remecli links "Deploy steps"
    remecli links memory/old.md --rename memory/new.md
    remecli links --dangling
    """
    from remecli.surfaces.cli.links import LinksRequest
    from remecli.surfaces.cli.links import links as run_links
    from remecli.surfaces.cli.start import settings_and_working_dir

    try:
        request = LinksRequest(
            path, as_json, depth, cast("Direction", direction), rename, delete, dangling, rebuild
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    started = settings_and_working_dir(setting_args)
    return started if isinstance(started, int) else run_links(*started, request)


@click.group(cls=CommandGroup)
def memory() -> None:
    """Earlier versions of a memory file, bringing one back, and the facts that changed.

    PATH is a memory file relative to the working dir (MEMORY.md, memory/2025-01-31.md) or a
    path to it. A restore is itself a new version, so it can be undone the same way.
    """


@memory.command(cls=SettingsCommand)
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def history(path: str, as_json: bool, setting_args: list[str]) -> int:
    """The versions of a memory file: version, time, size, what made the change."""
    from remecli.surfaces.cli.history import history as run_history
    from remecli.surfaces.cli.start import settings_and_working_dir

    started = settings_and_working_dir(setting_args)
    return started if isinstance(started, int) else run_history(*started, path, as_json=as_json)


@memory.command(cls=SettingsCommand)
@click.argument("path")
@click.argument(
    "version",
    type=WholeNumber(
        1,
        "{label} must be a number, got {value!r}",
        "versions start at 1, got {value}; `remecli memory history PATH` lists them",
    ),
)
def restore(path: str, version: int, setting_args: list[str]) -> int:
    """Bring back VERSION of a memory file (the replaced content is kept)."""
    from remecli.surfaces.cli.history import restore as run_restore
    from remecli.surfaces.cli.start import settings_and_working_dir

    started = settings_and_working_dir(setting_args)
    return started if isinstance(started, int) else run_restore(*started, path, version)


@memory.command(cls=SettingsCommand)
@click.option("--since", type=DATE, metavar="YYYY-MM-DD", help="only changes on or after")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def changes(since: dt.datetime | None, as_json: bool, setting_args: list[str]) -> int:
    """The facts that changed: each struck-through claim, what replaced it and when."""
    from remecli.surfaces.cli.changed_facts import changes as run_changes
    from remecli.surfaces.cli.start import settings_and_working_dir

    started = settings_and_working_dir(setting_args)
    if isinstance(started, int):
        return started
    return run_changes(*started, since=_day(since), as_json=as_json)


@click.command(cls=SettingsCommand)
@click.option("--list", "list_runs", is_flag=True, help="list the recorded dream runs")
@click.option("--show", metavar="RUN", help="a run's changes: action, sources, diff per node")
@click.option("--revert", metavar="RUN[:NODE]", help="undo a run (or one node) via the history")
@click.option("--approve", metavar="RUN", help="write a run that waits for review")
@click.option("--reject", metavar="RUN", help="drop a run that waits for review")
def dream(
    setting_args: list[str],
    list_runs: bool = False,
    show: str | None = None,
    revert: str | None = None,
    approve: str | None = None,
    reject: str | None = None,
) -> int:
    """Consolidate new topic cards into the digest (Auto Dream), or review its runs.

    date=YYYY-MM-DD dreams over the cards up to that day (default: today).
    """
    from remecli.surfaces.cli.dream import dream_once, parse_date
    from remecli.surfaces.cli.dream import review as review_runs
    from remecli.surfaces.cli.start import settings_or_exit_code

    review = {"show": show, "revert": revert, "approve": approve, "reject": reject}
    chosen = [(action, target) for action, target in review.items() if target is not None]
    if len(chosen) + list_runs > 1:
        raise click.UsageError("--list, --show, --revert, --approve and --reject: pick one")
    for action, target in chosen:
        if not target.strip():
            raise click.UsageError(f"--{action} needs a run id; `remecli dream --list` lists them")
    if list_runs or chosen:
        action, target = chosen[0] if chosen else ("list", "")
        settings = settings_or_exit_code(setting_args, "remecli dream")
        return settings if isinstance(settings, int) else review_runs(settings, action, target)

    dates = [a for a in setting_args if a.startswith("date=")]
    try:
        day = parse_date(dates[-1].removeprefix("date=")) if dates else None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    settings = settings_or_exit_code([a for a in setting_args if a not in dates], "remecli dream")
    return settings if isinstance(settings, int) else dream_once(settings, day)


@click.command(cls=SettingsCommand)
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--prune", is_flag=True, help="list the cards whose resource is gone")
@click.option("--yes", is_flag=True, help="with --prune: remove those cards (kept in history)")
@click.option("--json", "as_json", is_flag=True, help="print the outcomes as JSON")
@click.option(
    "--replace", is_flag=True, help="overwrite a different file of the same name in resource/"
)
def ingest(
    paths: tuple[str, ...],
    prune: bool,
    yes: bool,
    as_json: bool,
    replace: bool,
    setting_args: list[str],
) -> int:
    """Turn files or folders (Markdown, text, source code, JSON/JSONL, CSV, YAML, HTML, PDF)
    into source-linked cards.

    A file outside <working_dir>/resource/ is copied in first, a folder's files into
    resource/<folder>/ (the originals stay). Ingesting a changed file again updates its card in
    place. A file remecli cannot read is reported and the others go on. No PATH: every resource.

    \b
    remecli ingest ~/notes/plan.md
    remecli ingest ~/papers/
    remecli ingest --prune --yes
    """
    from remecli.surfaces.cli.resources import ingest as run_ingest
    from remecli.surfaces.cli.resources import prune as run_prune
    from remecli.surfaces.cli.start import settings_or_exit_code

    if yes and not prune:
        raise click.UsageError("--yes goes with --prune")
    settings = settings_or_exit_code(setting_args, "remecli ingest")
    if isinstance(settings, int):
        return settings
    if prune:
        return run_prune(settings, remove=yes)
    return run_ingest(settings, list(paths), as_json=as_json, replace=replace)


@click.command(cls=SettingsCommand)
@click.argument("action", required=False, type=click.Choice(["init", "status"]))
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="print the operation's answer as JSON")
@click.option("--encrypt", is_flag=True, help="init: the remote holds only GPG ciphertext")
@click.option("--gpg-key", "keys", multiple=True, help="init --encrypt: encrypt to this key")
def sync(
    action: str | None,
    remote: str | None,
    as_json: bool,
    encrypt: bool,
    keys: tuple[str, ...],
    setting_args: list[str],
) -> int:
    """Sync the memory with a git remote: commit here, merge the other machines', push.

    init REMOTE sets it up (a bare repository path, or an ssh/https URL of an empty private
    repository) and syncs once; status shows the last sync and the conflicts to resolve.
    init --encrypt encrypts the remote with git-remote-gcrypt (to --gpg-key KEY, repeatable:
    every machine's key; else to your default GPG key).

    \b
    git init --bare ~/remecli-memory.git       (once, on any disk or server)
    remecli sync init ~/remecli-memory.git
    remecli sync
    remecli sync status
    """
    from remecli.surfaces.cli.start import settings_or_exit_code
    from remecli.surfaces.cli.sync import run_sync

    if action == "init" and not remote:
        raise click.UsageError("sync init needs the remote: remecli sync init REMOTE")
    if action != "init" and remote:
        raise click.UsageError(f"unexpected {remote!r}: only `sync init` takes a remote")
    if (encrypt or keys) and action != "init":
        raise click.UsageError("--encrypt and --gpg-key go with `sync init REMOTE`")
    if keys and not encrypt:
        raise click.UsageError("--gpg-key goes with --encrypt")
    settings = settings_or_exit_code(setting_args, "remecli sync")
    if isinstance(settings, int):
        return settings
    return run_sync(settings, action or "sync", remote, as_json=as_json, encrypt=encrypt, keys=keys)
