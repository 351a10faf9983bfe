"""ASGI middlewares on request bodies: the size limit (413, before the app reads them) and the
media type (a body without Content-Type is taken as JSON; any other type than JSON gets 415)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from remecli.surfaces.auth import send_json
from remecli.surfaces.defaults import DEFAULT_MAX_BODY_BYTES

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    """Refuse bodies larger than `max_bytes` (by Content-Length, or while streaming)."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def _refuse(self, send: Send) -> None:
        message = f"request body over the {self.max_bytes}-byte limit; send less"
        body = json.dumps({"error": message, "code": "too_large"}).encode("utf-8")
        await send_json(send, 413, body)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:  # buffer the (small, JSON) body up to the limit, then replay it
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _is_json(media_type: str) -> bool:
    kind = media_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


class JsonBody:
    """POST bodies are JSON: no Content-Type counts as JSON, another type is refused (415)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = list(scope.get("headers") or [])
        media = next(
            (bytes(v).decode("latin-1") for k, v in headers if k.lower() == b"content-type"), None
        )
        if media is None or not media.strip():
            headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
            headers.append((b"content-type", b"application/json"))
            await self.app({**scope, "headers": headers}, receive, send)
            return
        if _is_json(media):
            await self.app(scope, receive, send)
            return
        message = (
            f"the body is {media.split(';', 1)[0].strip()!r}; send JSON with "
            "'Content-Type: application/json' (curl: -H 'Content-Type: application/json')"
        )
        body = json.dumps({"error": message, "code": "unsupported_media_type"}).encode("utf-8")
        await send_json(send, 415, body)
