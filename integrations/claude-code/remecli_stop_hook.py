#!/usr/bin/env python3
"""Claude Code Stop hook: hand the session's new messages to remecli's `memory_record`.

Claude Code runs this at every stop with a JSON object on stdin (`session_id`,
`transcript_path`, …). The hook answers at once: it starts a detached child (its own session,
no inherited pipes) and exits 0, so Claude Code never waits. The child reads Claude Code's JSONL
transcript, keeps what a person would want remembered (user prompts, assistant text, a one-line
note per tool call; tool results, thinking, sidechains and meta lines dropped) and runs

    remecli job memory_record --session-id claude-<session_id> --messages @<file> [ARGS]

`memory_record` skips messages it already has (by id), so only the new ones are stored and
summarized. Settings: arguments after the script name (e.g. `working_dir=~/notes/.reme`) and
`REMECLI_ARGS`; the command is `REMECLI_COMMAND` (default `remecli`); the child's output goes
to `REMECLI_HOOK_LOG` (default: remecli-claude-hook.log in the temp folder). Standard library only.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MAX_MESSAGES = 5_000
NOTE_CHARS = 120
_NOISE_PREFIXES = ("<command-", "<local-command", "<system-reminder>", "Caveat: ")


def _text_of(content: Any) -> tuple[list[str], list[str]]:
    """(texts, tool notes) of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return [content], []
    texts: list[str] = []
    notes: list[str] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            texts.append(str(block["text"]))
        elif kind == "tool_use":
            detail = json.dumps(block.get("input", {}), ensure_ascii=False)
            if len(detail) > NOTE_CHARS:
                detail = detail[: NOTE_CHARS - 1] + "…"
            notes.append(f"[tool {block.get('name', '?')}: {detail}]")
    return texts, notes


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """Claude Code's transcript as `memory_record` messages, tool noise reduced."""
    messages: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line being written right now
            if not isinstance(entry, dict) or entry.get("type") not in ("user", "assistant"):
                continue
            if entry.get("isSidechain") or entry.get("isMeta"):
                continue
            message = entry.get("message") or {}
            role = message.get("role") or entry["type"]
            texts, notes = _text_of(message.get("content", entry.get("content")))
            if role == "user":
                texts = [t for t in texts if not t.lstrip().startswith(_NOISE_PREFIXES)]
                notes = []
            body = "\n".join(texts + notes).strip()
            if not body:
                continue  # tool results, thinking only, interrupted turns
            key = message.get("id") if role == "assistant" else None
            if key and key in by_id:  # one reply split over several lines
                by_id[key]["content"] += "\n" + body
                continue
            record = {
                "role": role,
                "content": body,
                "id": key or entry.get("uuid"),
                "timestamp": entry.get("timestamp"),
                "name": "claude" if role == "assistant" else "user",
            }
            if key:
                by_id[key] = record
            messages.append({k: v for k, v in record.items() if v is not None})
    return messages[-MAX_MESSAGES:]


def _settings_args(argv: list[str]) -> list[str]:
    return shlex.split(os.environ.get("REMECLI_ARGS", "")) + list(argv)


def record(session_id: str, transcript: Path, argv: list[str]) -> int:
    """The child's work: read the transcript, run `remecli job memory_record`, wait for it."""
    messages = read_transcript(transcript)
    if not messages:
        return 0
    with tempfile.NamedTemporaryFile(
        "w", suffix=".json", prefix="remecli-hook-", delete=False, encoding="utf-8"
    ) as out:
        json.dump(messages, out, ensure_ascii=False)
    try:
        command = shlex.split(os.environ.get("REMECLI_COMMAND", "remecli")) + [
            "job",
            "memory_record",
            "--session-id",
            f"claude-{session_id}",
            "--messages",
            f"@{out.name}",
            *_settings_args(argv),
        ]
        return subprocess.call(command, stdin=subprocess.DEVNULL)
    finally:
        os.unlink(out.name)


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
