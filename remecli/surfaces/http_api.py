"""`remecli serve`: the memory jobs as an HTTP JSON API (FastAPI on uvicorn).

`GET /api/health` (no auth); `POST /api/<job>` with the job's parameters as the JSON body and
its result as the JSON answer; OpenAPI at `/api/openapi.json`, Swagger UI at `/api/docs`.
Every job route needs a bearer token whose scope allows the job (`remecli token add`); admins
also get `GET /api/tokens` and `GET /api/access-log`. Every error is `{"error": "<what to do>",
"code": …}` (400/401/403/404/405/409/413/415/421/503); CORS only for the `--cors` origins.
Everything outside `/api` is Studio, the web UI (`remecli.surfaces.studio`).
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import asdict
from typing import Any

from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp

from remecli import __version__
from remecli.ops import Job, JobError, JobRunner
from remecli.ops.errors import Forbidden
from remecli.surfaces.access import Gate
from remecli.surfaces.auth import Authenticator, BearerAuth, HostCheck, ServeToken
from remecli.surfaces.defaults import DEFAULT_MAX_BODY_BYTES
from remecli.surfaces.http_docs import (
    ASSETS,
    COMMON_ERRORS,
    DOCS,
    OPENAPI,
    WRITE_ERRORS,
    add_docs,
)
from remecli.surfaces.import_route import add_import_route
from remecli.surfaces.limits import BodyLimit, JsonBody
from remecli.surfaces.studio.app import StudioMount, mount_studio
from remecli.surfaces.tokens import LOCAL_USER, Principal, TokenStore

log = logging.getLogger(__name__)

OPEN_PATHS = ("/api/health", DOCS, OPENAPI, ASSETS + "/")
_bearer = HTTPBearer(
    auto_error=False,
    description="serve.token in the memory folder (admin), or a token from `remecli token add`",
)


def _error(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


def principal_of(request: Request) -> Principal:
    """The caller BearerAuth identified (the local user when the app runs without it)."""
    found = request.scope.get("state", {}).get("principal")
    return found if isinstance(found, Principal) else LOCAL_USER


def _endpoint(gate: Gate, job: Job) -> Any:
    async def endpoint(request: Request, **values: Any) -> dict[str, Any]:
        params = values.get("params")
        arguments = params.model_dump(exclude_unset=True) if params is not None else {}
        return await gate.run(principal_of(request), job.name, arguments, "http")

    required = any(info.is_required() for info in job.params.model_fields.values())
    body = Body(...) if required else Body(None)
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                "request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request
            ),
            inspect.Parameter(
                "params",
                inspect.Parameter.KEYWORD_ONLY,
                default=body,
                annotation=job.params if required else job.params | None,
            ),
            inspect.Parameter(  # documents the bearer scheme; BearerAuth checks it
                "credentials",
                inspect.Parameter.KEYWORD_ONLY,
                default=Depends(_bearer),
                annotation=HTTPAuthorizationCredentials | None,
            ),
        ],
        return_annotation=dict[str, Any],
    )
    endpoint.__name__ = job.name
    return endpoint


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(JobError)
    async def _job_error(request: Request, exc: JobError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for error in exc.errors()[:5]:
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
            problems.append(f"{where}: {error.get('msg')}")
        return _error(400, "; ".join(problems) + f" (see {DOCS})", "invalid_params")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            message = f"no route {request.url.path}; the routes are listed at {DOCS}"
            return _error(404, message, "not_found")
        if exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}; jobs are POST"
            return _error(405, message, "method_not_allowed")
        return _error(exc.status_code, str(exc.detail), "http_error")

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("HTTP %s %s failed", request.method, request.url.path)
        message = "the server failed on this request (see logs/remecli.log); retry or report it"
        return _error(500, message, "internal")


def _add_admin_routes(app: FastAPI, gate: Gate, store: TokenStore) -> None:
    def admin(request: Request, operation: str) -> Principal:
        caller = principal_of(request)
        if not caller.allows("admin"):
            gate.refused(caller, "http", operation, "forbidden")
            raise Forbidden(f"{operation} needs an admin token; {caller.name!r} is {caller.scope}")
        gate.log.record(caller.name, "http", operation)
        return caller

    @app.get("/api/tokens", tags=["admin"], responses=COMMON_ERRORS)
    async def tokens(
        request: Request,
        credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
    ) -> dict[str, Any]:
        """The scoped tokens: name, scope, paths, creation time (never the tokens)."""
        admin(request, "token_list")
        listed = [asdict(r) for r in store.records()]
        return {"tokens": [{k: v for k, v in r.items() if k != "sha256"} for r in listed]}

    @app.get("/api/access-log", tags=["admin"], responses=COMMON_ERRORS)
    async def access_log(
        request: Request,
        tail: int = Query(100, ge=1, le=10_000, description="How many of the last entries"),
        credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
    ) -> dict[str, Any]:
        """The last calls: who, when, which operation, which paths, the outcome."""
        admin(request, "access_log")
        return {"entries": gate.log.tail(tail)}


def build_app(
    runner: JobRunner,
    token: ServeToken,
    *,
    cors_origins: list[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    hosts: tuple[str, ...] | None = None,
) -> StudioMount:
    """The ASGI app: FastAPI routes from the registry, behind the Host check, the token check,
    the body limits and (with `cors_origins`) CORS. `hosts` None: any Host header."""
    app = FastAPI(
        title="remecli memory API",
        version=__version__,
        description="Search, read and feed remecli's Markdown memory. Every /api/<job> call "
        "needs `Authorization: Bearer <token>`; a token's scope (read, write, admin) decides "
        "which jobs it may run. Errors are `{error, code}`.",
        docs_url=None,
        openapi_url=OPENAPI,
        redoc_url=None,
    )
    gate = Gate(runner)
    store = TokenStore(gate.root)
    _add_error_handlers(app)
    add_docs(app)
    _add_job_routes(app, runner, gate)
    _add_admin_routes(app, gate, store)
    if not runner.read_only:  # the daemon's fast path for `remecli import` (the Stop hook)
        add_import_route(app, gate, principal_of)

    auth = Authenticator(token, store)
    inner: Any = JsonBody(BodyLimit(app, max_body_bytes))
    guarded: Any = HostCheck(
        BearerAuth(inner, auth, open_paths=OPEN_PATHS, access_log=gate.log), hosts
    )
    return mount_studio(_with_cors(guarded, cors_origins), runner, token)


def _add_job_routes(app: FastAPI, runner: JobRunner, gate: Gate) -> None:
    """GET /api/health, and POST /api/<job> for every served job, documented with its scope."""

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        """Liveness (no token needed)."""
        return {"status": "ok", "version": __version__, "read_only": runner.read_only}

    for job in runner.registry.served():
        scope = "read" if job.read_only else "write"
        app.post(
            f"/api/{job.name}",
            summary=job.description.splitlines()[0],
            description=job.description
            + f"\n\nNeeds a token with scope `{scope}` or above."
            + ("" if job.read_only else " Changes memory (refused with --read-only)."),
            tags=[scope],
            response_model=None,
            responses=COMMON_ERRORS if job.read_only else WRITE_ERRORS,
        )(_endpoint(gate, job))


def _with_cors(app: ASGIApp, cors_origins: list[str] | None) -> ASGIApp:
    """`app` behind CORS for `cors_origins` (none: unchanged). Outermost, so a browser's
    preflight (which carries no token) gets its answer."""
    if not cors_origins:
        return app
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        app,
        allow_origins=cors_origins,
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
    )
