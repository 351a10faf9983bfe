"""`remecli sync [init REMOTE | status]`: the memory_sync and memory_sync_status operations from
the shell, in lines a person reads (`--json`: the operation's answer)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from remecli.config.locations import Locations
from remecli.config.settings import Settings
from remecli.notes.writer import MemoryWriter


def run_sync(
    settings: Settings,
    action: str,
    remote: str | None,
    *,
    as_json: bool,
    encrypt: bool = False,
    keys: Sequence[str] = (),
) -> int:
    """Set up (`init`; `encrypt`: through git-remote-gcrypt to the GPG `keys`), show
    (`status`) or run one sync; exit 0 when it synced cleanly."""
    return asyncio.run(_run(settings, action, remote, as_json, Encryption(encrypt, keys)))


@dataclass(frozen=True)
class Encryption:
    """`remecli sync init --encrypt [--gpg-key KEY …]`."""

    on: bool = False
    keys: Sequence[str] = ()


def _init(settings: Settings, remote: str, encryption: Encryption) -> str | None:
    """Point the memory at `remote`; an error line, or None."""
    from pathlib import Path

    from remecli.sync.git import GitError
    from remecli.sync.repo import NotSetUp, SyncRepo, encrypted, machine_name, remote_location

    try:
        remote = remote_location(remote, Path.cwd())
        if encryption.on:
            remote = encrypted(remote)
    except NotSetUp as exc:
        return str(exc)
    root = Locations.from_settings(settings).ensure().root
    repo = SyncRepo(root, machine_name(settings.sync.machine))
    try:
        repo.init(remote, encryption.keys)
    except GitError as exc:
        return f"could not set up sync with {remote}: {exc}"
    print(f"sync set up: {root} <-> {remote} (this machine: {repo.machine})")
    return None


@dataclass
class SyncHost:
    """What memory_sync uses of a runtime, for the shell: the settings, the layout, the one
    memory writer; no search index (whoever opens it next reads the files a pull wrote), so a
    sync does not pay for the chat runtime and the search stack it never uses."""

    settings: Settings
    layout: Locations
    writer: MemoryWriter
    search_enabled: bool = False
    index: None = None


async def _run(
    settings: Settings, action: str, remote: str | None, as_json: bool, encryption: Encryption
) -> int:
    from remecli.config.logs import setup_logging
    from remecli.ops import JobError
    from remecli.ops.context import JobContext
    from remecli.ops.registry import NoParams
    from remecli.ops.sync_jobs import SyncStatusParams, memory_sync, memory_sync_status

    if action == "init":
        failed = _init(settings, remote or "", encryption)
        if failed:
            print(f"remecli: {failed}", file=sys.stderr)
            return 1
    layout = Locations.from_settings(settings).ensure()
    setup_logging(settings)
    writer = MemoryWriter.from_settings(layout.root, settings.memory)
    context = JobContext.stand_in(SyncHost(settings, layout, writer))
    try:
        if action == "status":
            result = await memory_sync_status(context, SyncStatusParams())
        else:
            result = await memory_sync(context, NoParams())
    except JobError as exc:
        print(f"remecli: {exc}", file=sys.stderr)
        return 1
    clean = result.outcome in ("ok", "never") or action == "status"
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return 0 if clean else 1
    lines = [
        _status_text(result.remote, result.time, result.outcome, result.message)
        if action == "status"
        else result.message
    ]
    lines += [f"  conflict: {c.path}: {c.detail}" for c in result.conflicts]
    lines += [
        f"  not pushed: {r.path} holds a secret ({', '.join(r.kinds)})" for r in result.refused
    ]
    print("\n".join(lines), file=sys.stdout if clean else sys.stderr)
    return 0 if clean else 1


def _status_text(remote: str, time: str, outcome: str, message: str) -> str:
    if not time:
        return f"remote: {remote}\nlast sync: never (run `remecli sync`)"
    when = time.replace("T", " ").replace("+00:00", " UTC")
    return f"remote: {remote}\nlast sync: {when} ({outcome})\n{message}"
