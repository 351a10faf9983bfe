#!/usr/bin/env python3
"""Claude Code Stop hook: record the session's new messages in remecli's memory.

Claude Code runs this at every stop with a JSON object on stdin (`session_id`,
`transcript_path`, …). The hook answers at once: it starts a detached child (its own session,
no inherited pipes) and exits 0, so Claude Code never waits. The child runs

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
import subprocess
import sys
import tempfile
from pathlib import Path


def _settings_args(argv: list[str]) -> list[str]:
    return shlex.split(os.environ.get("REMECLI_ARGS", "")) + list(argv)


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
    command = import_command(session_id, transcript, argv)
    return subprocess.call(command, stdin=subprocess.DEVNULL)


def detach(session_id: str, transcript: str, argv: list[str]) -> None:
    """Start the recording child in its own session; return without waiting for it."""
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
    if Path(transcript).expanduser().is_file():
        detach(session_id, str(Path(transcript).expanduser()), argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
