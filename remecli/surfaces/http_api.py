"""`remecli serve`: the memory jobs as an HTTP JSON API (FastAPI on uvicorn).

`GET /api/health` (no auth); `POST /api/<job>` with the job's parameters as the JSON body and
its result as the JSON answer; OpenAPI at `/api/docs`. Every job route needs the bearer token;
errors are `{"error": "<what to do>", "code": …}` with the job error's status (400/403/404/
409/413/503); CORS only for the `--cors` origins; request bodies over the limit get 413.
Everything outside `/api` is Studio, the web UI (`remecli.surfaces.studio`).
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import Body, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from remecli import __version__
from remecli.ops import Job, JobError, JobRunner
from remecli.surfaces.auth import BearerAuth, ServeToken
from remecli.surfaces.limits import DEFAULT_MAX_BODY_BYTES, BodyLimit
from remecli.surfaces.studio.app import mount_studio

OPEN_PATHS = ("/api/health", "/api/docs", "/api/openapi.json")
_bearer = HTTPBearer(auto_error=False, description="The token from <working_dir>/serve.token")


def _error(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": message, "code": code}, status_code=status)


def _endpoint(runner: JobRunner, job: Job) -> Any:
    async def endpoint(**values: Any) -> dict[str, Any]:
        params = values.get("params")
        arguments = params.model_dump(exclude_unset=True) if params is not None else {}
        return await runner.run(job.name, arguments)

    required = any(info.is_required() for info in job.params.model_fields.values())
    body = Body(...) if required else Body(None)
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
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


def build_app(
    runner: JobRunner,
    token: ServeToken,
    *,
    cors_origins: list[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> Any:
    """The ASGI app: FastAPI routes from the registry, wrapped in the body-size limit."""
    app = FastAPI(
        title="remecli memory API",
        version=__version__,
        description="Search, read and feed remecli's Markdown memory. "
        "Every /api/<job> call needs `Authorization: Bearer <token>`.",
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )

    @app.exception_handler(JobError)
    async def _job_error(request: Request, exc: JobError) -> JSONResponse:
        return _error(exc.status, str(exc), exc.code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for error in exc.errors()[:5]:
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
            problems.append(f"{where}: {error.get('msg')}")
        return _error(400, "; ".join(problems) + " (see /api/docs)", "invalid_params")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        """Liveness (no token needed)."""
        return {"status": "ok", "version": __version__, "read_only": runner.read_only}

    for job in runner.registry:
        app.post(
            f"/api/{job.name}",
            summary=job.description.splitlines()[0],
            description=job.description
            + ("" if job.read_only else "\n\nChanges memory (refused with --read-only)."),
            tags=["read" if job.read_only else "write"],
            response_model=None,
        )(_endpoint(runner, job))

    guarded: Any = BearerAuth(BodyLimit(app, max_body_bytes), token, open_paths=OPEN_PATHS)
    if not cors_origins:
        return mount_studio(guarded, runner, token)
    from starlette.middleware.cors import CORSMiddleware

    # outermost, so a browser's preflight (which carries no token) gets its answer
    return mount_studio(
        CORSMiddleware(
            guarded,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        ),
        runner,
        token,
    )
