"""`remecli token add/list/revoke` and `remecli access-log`: who may use the shared memory over
HTTP / MCP, and who did what. Implementations: `remecli.surfaces.tokens`, `.access_log`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from remecli.surfaces.cli.base import CommandGroup, SettingsCommand, WholeNumber


def _root_or_exit_code(setting_args: list[str]) -> Path | int:
    """The working dir of these settings, or 2 after printing a bad setting."""
    from remecli.config.locations import Locations
    from remecli.surfaces.cli.start import settings_or_exit_code

    settings = settings_or_exit_code(setting_args)
    if isinstance(settings, int):
        return settings
    return Locations.from_settings(settings).root


@click.group(name="token", cls=CommandGroup)
def token_group() -> None:
    """Scoped tokens for `remecli serve` and `remecli mcp --http`.

    \b
    read:  search, read, list, links, history, status
    write: also edit, write, record, cards, ingest, restore, dream, reindex
    admin: everything, also the token list and the access log over HTTP
    --paths GLOB confines a read/write token to matching files (memory/**, MEMORY.md, …).
    serve.token stays an admin token.
    """


@token_group.command(cls=SettingsCommand)
@click.argument("name")
@click.option(
    "--scope", type=click.Choice(["read", "write", "admin"]), required=True, help="what it may do"
)
@click.option("--paths", "paths", metavar="GLOB", help="only files matching GLOB, e.g. 'memory/**'")
def add(name: str, scope: str, paths: str | None, setting_args: list[str]) -> int:
    """Make token NAME; it is printed once (only its hash is kept).

    \b
    remecli token add claude-code --scope write
    remecli token add dashboard --scope read --paths 'memory/**'
    """
    from remecli.surfaces.tokens import TokenError, TokenStore

    root = _root_or_exit_code(setting_args)
    if isinstance(root, int):
        return root
    try:
        secret = TokenStore(root).add(name, scope, paths)  # type: ignore[arg-type]
    except TokenError as exc:
        print(f"remecli token: {exc}", file=sys.stderr)
        return 1
    print(secret)
    confined = f", only {paths}" if paths else ""
    print(
        f"token {name!r} ({scope}{confined}); shown once, keep it now "
        "(send it as 'Authorization: Bearer <token>')",
        file=sys.stderr,
    )
    return 0


@token_group.command(name="list", cls=SettingsCommand)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def list_tokens(as_json: bool, setting_args: list[str]) -> int:
    """The tokens: name, scope, paths, when made (never the tokens themselves)."""
    from dataclasses import asdict

    from remecli.surfaces.tokens import TokenError, TokenStore

    root = _root_or_exit_code(setting_args)
    if isinstance(root, int):
        return root
    try:
        records = TokenStore(root).records()
    except TokenError as exc:
        print(f"remecli token: {exc}", file=sys.stderr)
        return 1
    rows = [{k: v for k, v in asdict(r).items() if k != "sha256"} for r in records]
    if as_json:
        print(json.dumps({"tokens": rows}, indent=2))
        return 0
    if not rows:
        print("no tokens yet (serve.token is the admin token); add one with remecli token add")
        return 0
    for row in rows:
        print(f"{row['name']}  {row['scope']}  {row['paths'] or '*'}  {row['created']}")
    return 0


@token_group.command(cls=SettingsCommand)
@click.argument("name")
def revoke(name: str, setting_args: list[str]) -> int:
    """Forget token NAME: it is refused from the next request on."""
    from remecli.surfaces.tokens import TokenError, TokenStore

    root = _root_or_exit_code(setting_args)
    if isinstance(root, int):
        return root
    try:
        TokenStore(root).revoke(name)
    except TokenError as exc:
        print(f"remecli token: {exc}", file=sys.stderr)
        return 1
    print(f"token {name!r} revoked", file=sys.stderr)
    return 0


@click.command(name="access-log", cls=SettingsCommand)
@click.option("--tail", "count", type=WholeNumber(1), help="only the last N entries")
@click.option("--json", "as_json", is_flag=True, help="print JSON lines")
def access_log(count: int | None, as_json: bool, setting_args: list[str]) -> int:
    """Who used the memory over HTTP / MCP: time, token, surface, operation, outcome, paths.

    \b
    remecli access-log --tail 20
    remecli access-log --json | jq 'select(.outcome != "ok")'
    """
    from remecli.surfaces.access_log import AccessLog, format_entry

    root = _root_or_exit_code(setting_args)
    if isinstance(root, int):
        return root
    entries = AccessLog(root).tail(count)
    for entry in entries:
        print(json.dumps(entry, ensure_ascii=False) if as_json else format_entry(entry))
    if not entries and not as_json:
        print("no calls logged yet (remecli serve and remecli mcp --http log every call)")
    return 0
