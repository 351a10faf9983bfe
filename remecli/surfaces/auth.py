"""The bearer token that guards the HTTP surfaces, and an ASGI middleware that checks it.

The token is `--token`, else `REME_SERVE_TOKEN`, else `<working_dir>/serve.token`, generated at
the first start (mode 0600, never overwritten).
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from remecli.ops.paths import TOKEN_FILE

log = logging.getLogger(__name__)

TOKEN_ENV = "REME_SERVE_TOKEN"
ASGIApp = Any  # an ASGI application (Starlette, FastAPI or another middleware)


@dataclass(frozen=True)
class ServeToken:
    """The token and where it came from (`--token`, the environment, or the token file)."""

    value: str
    source: str


def load_token(working_dir: Path, explicit: str | None = None) -> ServeToken:
    """The token to require: explicit, else the environment, else the token file (created once)."""
    if explicit:
        return ServeToken(explicit, "--token")
    if os.environ.get(TOKEN_ENV):
        return ServeToken(os.environ[TOKEN_ENV], TOKEN_ENV)
    path = working_dir / TOKEN_FILE
    working_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, 0o600)
            log.warning("%s was readable by others (mode %o); set it to 0600", path, mode)
        value = path.read_text(encoding="utf-8").strip()
        if not value:
            raise ValueError(f"{path} is empty; delete it to get a new token") from None
        return ServeToken(value, str(path))
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    return ServeToken(path.read_text(encoding="utf-8").strip(), str(path))


def token_matches(header: str | None, token: str) -> bool:
    """True when an `Authorization` header carries `Bearer <token>` (constant-time compare)."""
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        value.strip().encode(), token.encode()
    )


def unauthorized_body(source: str) -> bytes:
    """The 401 answer: what to send instead."""
    hint = (
        f"missing or wrong bearer token; send 'Authorization: Bearer <token>' (token from {source})"
    )
    return json.dumps({"error": hint, "code": "unauthorized"}).encode("utf-8")


class BearerAuth:
    """ASGI middleware: every HTTP request needs the token, except the `open_paths`."""

    def __init__(self, app: ASGIApp, token: ServeToken, open_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.token = token
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" or (
            scope["type"] == "http" and scope.get("path") in self.open_paths
        ):
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # websocket or anything else: the token or nothing
            headers = dict(scope.get("headers") or [])
            header = headers.get(b"authorization", b"").decode("latin-1") or None
            if token_matches(header, self.token.value):
                await self.app(scope, receive, send)
            elif scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            return
        headers = dict(scope.get("headers") or [])
        header = headers.get(b"authorization", b"").decode("latin-1") or None
        if token_matches(header, self.token.value):
            await self.app(scope, receive, send)
            return
        body = unauthorized_body(self.token.source)
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
