"""`POST /api/import`: a running `remecli serve` records another agent's transcript file.

What `remecli import FILE` does, done by the daemon: the Claude Code Stop hook sends the path
of the session's transcript and returns at once (202); the server parses the file (Claude Code,
Codex or OpenAI messages) and records what is new with `memory_record`, one import at a time,
in the background. Only an admin token may ask (the server reads a file of this machine), and
only for a regular `.jsonl`/`.json` file owned by the server's own user; a file in no known
format records nothing. Imports still running when the server stops are finished first.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from remecli.knowledge.imports import read_conversation
from remecli.ops.errors import Forbidden, InvalidParams
from remecli.surfaces.access import Gate
from remecli.surfaces.cli.importing import SUFFIXES, record_conversation
from remecli.surfaces.http_docs import COMMON_ERRORS
from remecli.surfaces.tokens import Principal

log = logging.getLogger(__name__)


class ImportParams(BaseModel):
    """Which transcript to record, and as what."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="Absolute path of the transcript file on the server's machine")
    format: Literal["claude-code", "codex", "openai"] | None = Field(
        None, description="The file's format (default: detected)"
    )
    session_id: str | None = Field(None, description="Record as this session (default: derived)")


def checked_file(raw: str) -> Path:
    """The transcript file `raw` names, or InvalidParams/Forbidden saying why not."""
    path = Path(raw)
    if not path.is_absolute():
        raise InvalidParams(f"path {raw!r} is not absolute; give the transcript's full path")
    if path.suffix not in SUFFIXES:
        raise InvalidParams(f"{raw!r} is not a .jsonl or .json transcript")
    try:
        info = path.stat()
    except OSError:
        raise InvalidParams(f"no such file {raw!r}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InvalidParams(f"{raw!r} is not a regular file")
    if info.st_uid != os.getuid():
        raise Forbidden(f"{raw!r} belongs to another user; the server imports only its own files")
    return path


class Importer:
    """Runs the imports one after the other, in the background, for the server's lifetime."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.lock = asyncio.Lock()
        self.pending: set[asyncio.Task[None]] = set()

    def submit(self, caller: Principal, params: ImportParams, path: Path) -> None:
        task = asyncio.ensure_future(self._import(caller, params, path))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _import(self, caller: Principal, params: ImportParams, path: Path) -> None:
        async def run(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return await self.gate.run(caller, name, arguments, "http")

        async with self.lock:
            try:
                conversation = await asyncio.to_thread(
                    read_conversation, path, params.format, params.session_id
                )
                if conversation.messages:
                    result = await record_conversation(run, path, conversation)
                    log.info("imported %s: %s new", path, result["recorded"])
            except Exception:
                log.exception("import of %s failed", path)

    async def drain(self) -> None:
        """Wait for the imports still running (at shutdown, before the runtime closes)."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)


def add_import_route(
    app: FastAPI, gate: Gate, principal_of: Callable[[Request], Principal]
) -> Importer:
    """Add `POST /api/import` (admin) to `app`; its importer is drained at shutdown."""
    importer = Importer(gate)

    @app.post("/api/import", tags=["admin"], status_code=202, responses=COMMON_ERRORS)
    async def import_transcript(request: Request, params: ImportParams) -> JSONResponse:
        """Record a transcript file of this machine (admin token), in the background."""
        caller = principal_of(request)
        if not caller.allows("admin"):
            gate.refused(caller, "http", "import", "forbidden")
            raise Forbidden(f"import needs an admin token; {caller.name!r} is {caller.scope}")
        path = checked_file(params.path)
        gate.log.record(caller.name, "http", "import", [str(path)])
        importer.submit(caller, params, path)
        return JSONResponse({"accepted": True, "path": str(path)}, status_code=202)

    app.router.add_event_handler("shutdown", importer.drain)
    return importer
