"""Studio's ASGI app (Starlette, which FastAPI is built on) and how it sits beside the HTTP API.

`mount_studio(api, runner, token)` answers `/api…` with the API unchanged and everything else
with Studio: `/` (the app, or how to log in), `/studio/login` (a one-time link → a session
cookie), `/static/…` (the packaged assets) and `/studio/api/…` (JSON for the page; a session,
and on writes the CSRF token and the page's own Origin).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from remecli.ops import JobError, JobRunner
from remecli.surfaces.auth import ServeToken
from remecli.surfaces.limits import BodyLimit
from remecli.surfaces.studio import access
from remecli.surfaces.studio.dream_routes import dream_routes
from remecli.surfaces.studio.routes import api_routes
from remecli.surfaces.studio.tasks import Tasks

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
TEMPLATES = HERE / "templates"
MAX_BODY_BYTES = 4_000_000
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


def _template(name: str, **values: str) -> str:
    text = (TEMPLATES / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html.escape(value, quote=True))
    return text


def login_help(message: str = "", status: int = 200) -> HTMLResponse:
    """The page for a browser without a session: how to log in."""
    return HTMLResponse(
        _template("login.html", message=message),
        status_code=status,
        headers={"cache-control": "no-store"},
    )


def _port(request: Request) -> int | None:
    server = request.scope.get("server")
    return server[1] if server else None


def session_of(request: Request, sessions: access.Sessions | None = None) -> access.Session | None:
    """The browser's live session, or None."""
    store: access.Sessions = sessions or request.app.state.sessions
    return store.get(request.cookies.get(access.cookie_name(_port(request))))


def page_language(runner: JobRunner) -> str:
    """The pages' language: `language: zh` → "zh", else "en" (the page may switch it)."""
    return "zh" if runner.context.memory.settings.language == "zh" else "en"


async def home(request: Request) -> Response:
    session = session_of(request)
    if session is None:
        return login_help()
    runner: JobRunner = request.app.state.runner
    read_only = "true" if runner.read_only else "false"  # no create form where nothing saves
    return HTMLResponse(
        _template(
            "studio.html", csrf=session.csrf, lang=page_language(runner), read_only=read_only
        ),
        headers={"cache-control": "no-store"},
    )


async def login(request: Request) -> Response:
    sessions: access.Sessions = request.app.state.sessions
    session_id = sessions.redeem(request.query_params.get("ticket", ""))
    if session_id is None:
        return login_help(
            "That login link has expired or was already used. Run `remecli studio` again for "
            "a new one.",
            status=403,
        )
    answer = RedirectResponse("/", status_code=303, headers={"cache-control": "no-store"})
    answer.set_cookie(
        access.cookie_name(_port(request)),
        session_id,
        max_age=access.SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
    )
    return answer


def _refuse(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


class StudioGuard:
    """ASGI middleware for every Studio request: the Host must be this machine; `/studio/api`
    needs a session; a write also needs the page's own Origin and the session's CSRF token."""

    def __init__(self, app: ASGIApp, sessions: access.Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._check(request)
        if refusal is not None:
            await _with_headers(refusal)(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_secured)

    def _check(self, request: Request) -> Response | None:
        headers = request.headers
        if not access.host_allowed(headers.get("host")):
            return HTMLResponse(
                "<h1>Studio answers only on this machine</h1><p>Open it at 127.0.0.1 or "
                "localhost (run <code>remecli studio</code>).</p>",
                status_code=421,
            )
        if not request.url.path.startswith("/studio/api/"):
            return None
        session = session_of(request, self.sessions)
        if session is None:
            return _refuse(401, "not logged in; run `remecli studio` for a login link", "login")
        if request.method in ("GET", "HEAD"):
            return None
        if not access.origin_allowed(
            headers.get("origin"),
            headers.get("host"),
            headers.get("sec-fetch-site"),
            headers.get("referer"),
        ):
            return _refuse(
                403,
                "refused: the request did not come from Studio's page (a write needs its Origin "
                "or Referer)",
                "origin",
            )
        if not access.csrf_matches(headers.get(access.CSRF_HEADER), session):
            return _refuse(403, "refused: missing or wrong CSRF token; reload the page", "csrf")
        return None


def _with_headers(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


async def _job_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, JobError)
    return JSONResponse(exc.body(), status_code=exc.status)


def build_studio(runner: JobRunner, token: ServeToken) -> StudioGuard:
    """The Studio ASGI app over `runner`, logging in with links signed by `token`."""
    app = Starlette(
        routes=[
            Route("/", home),
            Route(access.LOGIN_PATH, login),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            *dream_routes(),
            Mount("/studio/api", routes=api_routes()),
        ],
        exception_handlers={JobError: _job_error},
    )
    app.state.sessions = access.Sessions(token.value)
    app.state.runner = runner
    app.state.tasks = Tasks(runner)
    return StudioGuard(BodyLimit(app, MAX_BODY_BYTES), app.state.sessions)


class StudioMount:
    """`/api…` (and the lifespan) to the HTTP API, everything else to Studio."""

    def __init__(self, api: ASGIApp, studio: ASGIApp) -> None:
        self.api = api
        self.studio = studio

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "lifespan" or path == "/api" or path.startswith("/api/"):
            await self.api(scope, receive, send)
        else:
            await self.studio(scope, receive, send)


def mount_studio(api: ASGIApp, runner: JobRunner, token: ServeToken) -> StudioMount:
    """The HTTP API `api` with Studio served beside it at `/`."""
    return StudioMount(api, build_studio(runner, token))
