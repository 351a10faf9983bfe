#!/usr/bin/env python3
"""Claude Code Stop hook: record the session's new messages in remecli's memory.

Claude Code runs this at every stop with a JSON object on stdin (`session_id`,
`transcript_path`, `cwd`, …). The hook answers at once and always exits 0.

Fast path: when a `remecli serve` runs on the memory (it announces itself in
`<memory>/.serve.json`: pid and URL; the pid must be alive), the hook sends it the transcript's
path (`POST /api/import`, the admin token from `REME_SERVE_TOKEN` or `<memory>/serve.token`)
and exits; the server records it in the background. The memory is the one `working_dir=`
(argument or `REMECLI_ARGS`) or `REME_WORKING_DIR` names, else a `.reme` in the session's
folder or a parent, else the memory home (`$XDG_DATA_HOME/remecli`, else
`~/.local/share/remecli`) — what `remecli where` would say in that folder.

Otherwise (no server, or it did not accept the call) it starts a detached child (its own
session, no inherited pipes) and exits 0, so Claude Code never waits. The child runs

    remecli import <transcript_path> --format claude-code --session-id claude-<session_id> [ARGS]

which reads Claude Code's transcript with remecli's own parser (prompts, replies with their
split parts merged, one line per tool call; tool results, thinking, sub-agents, meta lines,
shell echoes, interruptions, API errors and compact summaries dropped), redacts secrets and
stores only the messages it has not seen yet (by id) in `sessions/claude-<session_id>.jsonl`;
running it again on the same transcript adds nothing. Settings: arguments after the script name
(e.g. `working_dir=~/notes/.reme`) and `REMECLI_ARGS`; the command is `REMECLI_COMMAND`
(default `remecli`); the child's output goes to `REMECLI_HOOK_LOG` (default:
remecli-claude-hook.log in the temp folder).

Standard library only, on purpose: Claude Code may run it with any Python, and remecli may be
installed elsewhere (`uvx remecli`, a virtualenv); parsing lives in remecli
(`remecli.knowledge.imports.claude_code`), shared with `remecli import`.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
from pathlib import Path

# subprocess and tempfile are imported only when the hook starts a child: on the fast path the
# hook loads almost nothing (urllib alone would cost more than the whole hook)
DAEMON_FILE = ".serve.json"  # written by `remecli serve` (remecli.surfaces.daemon)
DAEMON_TIMEOUT = 2.0


def _settings_args(argv: list[str]) -> list[str]:
    return shlex.split(os.environ.get("REMECLI_ARGS", "")) + list(argv)


def memory_folder(argv: list[str], cwd: str | None) -> Path | None:
    """The memory remecli would use for this session (None: a `config=` may name another)."""
    args = _settings_args(argv)
    named = [a.split("=", 1)[1] for a in args if a.startswith("working_dir=")]
    base = Path(cwd).expanduser() if cwd else Path.cwd()
    if named:
        return (base / Path(named[-1]).expanduser()).resolve()
    if any(a.startswith("config=") for a in args):
        return None
    if os.environ.get("REME_WORKING_DIR"):
        return (base / Path(os.environ["REME_WORKING_DIR"]).expanduser()).resolve()
    here = base.resolve()
    for folder in (here, *here.parents):
        if (folder / ".reme").is_dir():
            return folder / ".reme"
    data_home = os.environ.get("XDG_DATA_HOME", "")
    if data_home and os.path.isabs(data_home):
        return Path(data_home) / "remecli"
    return Path.home() / ".local" / "share" / "remecli"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid > 0


def send_to_daemon(memory: Path, session_id: str, transcript: str) -> bool:
    """Hand the transcript to the memory's running `remecli serve`; True when it accepted."""
    if os.environ.get("REMECLI_NO_DAEMON"):
        return False
    try:
        daemon = json.loads((memory / DAEMON_FILE).read_text(encoding="utf-8"))
        if not _alive(int(daemon["pid"])):
            return False
        token = os.environ.get("REME_SERVE_TOKEN") or (
            (memory / "serve.token").read_text(encoding="utf-8").strip()
        )
        body = {"path": transcript, "format": "claude-code", "session_id": f"claude-{session_id}"}
        return post(str(daemon["url"]), "/api/import", token, body) == 202
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no server, a stale file, a refusal: record it ourselves


def post(url: str, path: str, token: str, body: dict[str, str]) -> int:
    """POST `body` as JSON to a plain-HTTP `url` + `path` over one socket; the status code
    (0 for an answer that is not HTTP). HTTPS is not spoken here: ValueError."""
    scheme, _, address = url.rstrip("/").partition("://")
    if scheme != "http":
        raise ValueError(f"{scheme} is not spoken by the hook")
    host, _, port = address.rpartition(":")
    data = json.dumps(body).encode("utf-8")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        "Connection: close\r\n\r\n"
    )
    with socket.create_connection((host.strip("[]"), int(port)), timeout=DAEMON_TIMEOUT) as sock:
        sock.sendall(head.encode("latin-1") + data)
        status_line = sock.makefile("rb").readline(200).split()
    return int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0


def import_command(session_id: str, transcript: Path, argv: list[str]) -> list[str]:
    """The `remecli import` command line that records this session."""
    return shlex.split(os.environ.get("REMECLI_COMMAND", "remecli")) + [
        "import",
        str(transcript),
        "--format",
        "claude-code",
        "--session-id",
        f"claude-{session_id}",
        "--json",
        *_settings_args(argv),
    ]


def record(session_id: str, transcript: Path, argv: list[str]) -> int:
    """The child's work: run `remecli import` on the transcript and wait for it."""
    import subprocess

    command = import_command(session_id, transcript, argv)
    return subprocess.call(command, stdin=subprocess.DEVNULL)


def detach(session_id: str, transcript: str, argv: list[str], cwd: str | None = None) -> None:
    """Start the recording child in its own session (in the session's folder, so it finds the
    same memory); return without waiting for it."""
    import subprocess
    import tempfile

    log_path = os.environ.get(
        "REMECLI_HOOK_LOG", os.path.join(tempfile.gettempdir(), "remecli-claude-hook.log")
    )
    with open(log_path, "a", encoding="utf-8") as log:
        subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--record", session_id, transcript, *argv],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
            cwd=cwd if cwd and os.path.isdir(cwd) else None,
        )


def main(argv: list[str]) -> int:
    """Hook entry point (`--record SID PATH …` is the detached child)."""
    if argv[:1] == ["--record"]:
        return record(argv[1], Path(argv[2]), argv[3:])
    try:
        event = json.load(sys.stdin)
        session_id = str(event["session_id"])
        transcript = str(event["transcript_path"])
    except (ValueError, KeyError, TypeError) as exc:
        print(f"remecli hook: expected Claude Code's hook JSON on stdin ({exc})", file=sys.stderr)
        return 0  # never block or fail the user's session
    path = Path(transcript).expanduser()
    if not path.is_file():
        return 0
    cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else None
    memory = memory_folder(argv, cwd)
    if memory is not None and send_to_daemon(memory, session_id, str(path.resolve())):
        return 0
    detach(session_id, str(path.resolve()), argv, cwd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
