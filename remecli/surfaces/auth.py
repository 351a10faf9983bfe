"""The bearer tokens that guard the HTTP surfaces, and the ASGI middlewares that check them.

The bootstrap token is `--token`, else `REME_SERVE_TOKEN`, else `<working_dir>/serve.token`,
generated at the first start (mode 0600, never overwritten); it is an admin token. Scoped tokens
(`remecli token add`) are looked up in `tokens.json`. The caller found is put in the ASGI scope
(`scope["state"]["principal"]`) for the routes. `HostCheck` answers 421 to a Host header that
is not this server's (DNS rebinding), as the MCP SDK's own HTTP server does.
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
from typing import TYPE_CHECKING

from remecli.config.privacy import private_dirs
from remecli.ops.paths import TOKEN_FILE
from remecli.surfaces.access_log import AccessLog
from remecli.surfaces.tokens import Principal, TokenStore

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

TOKEN_ENV = "REME_SERVE_TOKEN"


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
    private_dirs(working_dir)
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


def bearer_value(header: str | None) -> str | None:
    """The token an `Authorization: Bearer <token>` header carries (None: no bearer header)."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def token_matches(header: str | None, token: str) -> bool:
    """True when an `Authorization` header carries `Bearer <token>` (constant-time compare)."""
    value = bearer_value(header)
    return value is not None and hmac.compare_digest(value.encode(), token.encode())


UNAUTHORIZED = (
    "missing or wrong bearer token; send 'Authorization: Bearer <token>' with the token in "
    "serve.token in the memory folder, or one made with `remecli token add NAME --scope read`"
)


def unauthorized_body() -> bytes:
    """The 401 answer: what to send instead (no file paths)."""
    return json.dumps({"error": UNAUTHORIZED, "code": "unauthorized"}).encode("utf-8")


class Authenticator:
    """Who a bearer token belongs to: the bootstrap token (admin) or a scoped token."""

    def __init__(self, bootstrap: ServeToken, store: TokenStore) -> None:
        self.bootstrap = bootstrap
        self.store = store

    def identify(self, header: str | None) -> Principal | None:
        """The caller of a request with this `Authorization` header, or None."""
        value = bearer_value(header)
        if value is None:
            return None
        if hmac.compare_digest(value.encode(), self.bootstrap.value.encode()):
            return Principal("bootstrap", "admin")
        try:
            return self.store.find(value)
        except ValueError as exc:  # tokens.json unreadable: nobody but the bootstrap token
            log.error("%s", exc)
            return None


async def send_json(
    send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Answer with a JSON body."""
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class BearerAuth:
    """ASGI middleware: every HTTP request needs a token, except the `open_paths` (exact, or a
    prefix when it ends with '/'); the caller is put in `scope["state"]["principal"]`."""

    def __init__(
        self,
        app: ASGIApp,
        auth: Authenticator,
        open_paths: Iterable[str] = (),
        *,
        access_log: AccessLog | None = None,
        surface: str = "http",
    ) -> None:
        self.app = app
        self.auth = auth
        self.open_paths = tuple(open_paths)
        self.access_log = access_log
        self.surface = surface

    def _is_open(self, path: str) -> bool:
        return any(path.startswith(p) if p.endswith("/") else path == p for p in self.open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or (
            scope["type"] == "http" and self._is_open(scope.get("path", ""))
        ):
            await self.app(scope, receive, send)
            return
        principal = self.auth.identify(_header(scope, b"authorization"))
        if principal is not None:
            scope.setdefault("state", {})["principal"] = principal
            await self.app(scope, receive, send)
            return
        if self.access_log is not None:
            self.access_log.record(
                "-", self.surface, str(scope.get("path", "")), [], "unauthorized"
            )
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
        elif scope["type"] == "http":
            await send_json(send, 401, unauthorized_body(), [(b"www-authenticate", b"Bearer")])


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def allowed_hosts(host: str) -> tuple[str, ...] | None:
    """The Host header names a server bound to `host` answers (None: any, for a server bound
    to a public or wildcard address, which is reached by names this process cannot know)."""
    if host in LOOPBACK:
        return ("127.0.0.1", "localhost", "[::1]")
    return None


class HostCheck:
    """ASGI middleware: 421 for a request whose Host header is not one of `hosts` (any port)."""

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...] | None) -> None:
        self.app = app
        self.hosts = hosts

    def _allowed(self, value: str | None) -> bool:
        if self.hosts is None:
            return True
        if not value:
            return False
        name = value.rsplit(":", 1)[0] if not value.endswith("]") else value
        return name.lower() in self.hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._allowed(_header(scope, b"host")):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        message = "this server answers only requests addressed to this machine (Host header)"
        body = json.dumps({"error": message, "code": "misdirected"}).encode("utf-8")
        await send_json(send, 421, body)
