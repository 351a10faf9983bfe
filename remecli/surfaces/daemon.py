"""The running `remecli serve` of a memory, found through `<working_dir>/.serve.json`.

`remecli serve` writes the file (mode 0600) once it listens — its pid, a loopback URL, whether
it is read-only — and removes it when it stops. Clients on this machine (`remecli job`, the
Claude Code Stop hook) read it, check that the pid is alive, and send their call to the server
instead of opening the memory themselves; without a live server they do the work themselves.
The file starts with a dot, so no job ever reads or lists it. The Claude Code hook repeats the
client side with the standard library alone (it must not import remecli).
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remecli.notes.atomic_write import atomic_write_text
from remecli.ops.paths import TOKEN_FILE

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
DAEMON_FILE = ".serve.json"
TOKEN_ENV = "REME_SERVE_TOKEN"
NO_DAEMON_ENV = "REMECLI_NO_DAEMON"  # set (to anything but empty): never use a running serve


@dataclass(frozen=True)
class Daemon:
    """A live `remecli serve` on this machine."""

    pid: int
    url: str  # e.g. http://127.0.0.1:8765 (no trailing slash)
    read_only: bool


def loopback_url(url: str, host: str) -> str:
    """The URL a client on this machine uses: a wildcard bind is reached over 127.0.0.1."""
    if host in ("0.0.0.0", "", "::", "[::]"):
        scheme, _, rest = url.partition("://")
        port = rest.rsplit(":", 1)[-1]
        return f"{scheme}://127.0.0.1:{port}"
    return url


def write_daemon_file(root: Path, url: str, *, read_only: bool) -> Path:
    """Announce this process as the memory's server (replacing a stale announcement)."""
    path = root / DAEMON_FILE
    announcement = {"pid": os.getpid(), "url": url, "read_only": read_only}
    atomic_write_text(path, json.dumps(announcement), new_mode=0o600)
    return path


def remove_daemon_file(root: Path) -> None:
    """Withdraw the announcement, if it is still this process's."""
    path = root / DAEMON_FILE
    found = read_daemon_file(path)
    if found is not None and found.pid == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read_daemon_file(path: Path) -> Daemon | None:
    """The announcement in `path` as written (None when missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Daemon(int(data["pid"]), str(data["url"]).rstrip("/"), bool(data["read_only"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def alive(pid: int) -> bool:
    """True when a process with this pid exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, another user's
        return True
    return pid > 0


def announced_server(root: Path) -> Daemon | None:
    """The live server announced for the memory at `root`, other than this process (None:
    none, or its pid is gone)."""
    found = read_daemon_file(root / DAEMON_FILE)
    live = found is not None and found.pid != os.getpid() and alive(found.pid)
    return found if live else None


def find_daemon(root: Path) -> Daemon | None:
    """The live server of the memory at `root` for a client to use (None: none announced, its
    pid is gone, or REMECLI_NO_DAEMON is set)."""
    return None if os.environ.get(NO_DAEMON_ENV) else announced_server(root)


def served_beside(found: Daemon) -> str:
    """What a `remecli serve` says when its memory is already served by `found`: both serve,
    the first stays the announced one (a second announcement would take it over, and be
    withdrawn when the second stops while the first still runs)."""
    return (
        f"this memory is also served at {found.url} (pid {found.pid}), which stays its "
        "announced server: remecli studio and other clients find that one, not this one"
    )


def daemon_token(root: Path) -> str | None:
    """The admin token a local client sends: REME_SERVE_TOKEN, else serve.token (None: none)."""
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV]
    try:
        return (root / TOKEN_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


class DaemonUnavailable(Exception):
    """The server could not take the call (not reachable, refused the token, …): do it here."""


def post_json(url: str, token: str, body: Mapping[str, object], timeout: float) -> tuple[int, Any]:
    """POST `body` as JSON; the status and the decoded answer. Raises DaemonUnavailable when
    there is no answer at all."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with _DIRECT.open(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            return exc.code, json.loads(exc.read() or b"null")
        except ValueError:
            return exc.code, None
    except (OSError, ValueError) as exc:  # refused, reset, timed out, not JSON
        raise DaemonUnavailable(str(exc)) from None
