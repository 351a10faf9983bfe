"""Studio's dream review: the page `/dream` and its JSON under `/studio/api/dream/…`.

Each route adapts one job (memory_dream_runs, memory_dream_run, memory_dream_revert,
memory_dream_approve, memory_dream_reject); being under `/studio/api`, the guard in `app` checks
the session and, on a POST, the page's Origin and the CSRF token, as for every other write.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from remecli.ops import JobRunner
from remecli.ops.dream_jobs import (
    ApproveParams,
    RejectParams,
    RevertParams,
    RunParams,
    RunsParams,
)
from remecli.ops.errors import InvalidParams

TEMPLATE = Path(__file__).resolve().parent / "templates" / "dream.html"


def _runner(request: Request) -> JobRunner:
    runner: JobRunner = request.app.state.runner
    return runner


async def _body(request: Request) -> dict[str, object]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        raise InvalidParams("the body is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("run_id"), str):
        raise InvalidParams("the body must be a JSON object with a `run_id`")
    return body


async def page(request: Request) -> Response:
    """The review page, or how to log in."""
    from remecli.surfaces.studio.app import login_help, page_language, session_of

    session = session_of(request)
    if session is None:
        return login_help()
    text = TEMPLATE.read_text(encoding="utf-8")
    text = text.replace("{{csrf}}", html.escape(session.csrf, quote=True))
    text = text.replace("{{lang}}", page_language(_runner(request)))
    return HTMLResponse(text, headers={"cache-control": "no-store"})


async def runs(request: Request) -> Response:
    return JSONResponse(await _runner(request).answer(RunsParams(limit=100)))


async def run(request: Request) -> Response:
    run_id = request.query_params.get("id", "").strip()
    return JSONResponse(await _runner(request).answer(RunParams.parse(run_id=run_id)))


async def revert(request: Request) -> Response:
    body = await _body(request)
    arguments: dict[str, object] = {"run_id": body["run_id"]}
    if isinstance(body.get("path"), str) and body["path"]:
        arguments["path"] = body["path"]
    return JSONResponse(await _runner(request).answer(RevertParams.parse(**arguments)))


async def approve(request: Request) -> Response:
    body = await _body(request)
    return JSONResponse(await _runner(request).answer(ApproveParams.parse(run_id=body["run_id"])))


async def reject(request: Request) -> Response:
    body = await _body(request)
    return JSONResponse(await _runner(request).answer(RejectParams.parse(run_id=body["run_id"])))


def dream_routes() -> list[BaseRoute]:
    """`/dream` and `/studio/api/dream/…` (listed before Studio's own `/studio/api` mount)."""

    return [
        Route("/dream", page),
        Mount(
            "/studio/api/dream",
            routes=[
                Route("/runs", runs),
                Route("/run", run),
                Route("/revert", revert, methods=["POST"]),
                Route("/approve", approve, methods=["POST"]),
                Route("/reject", reject, methods=["POST"]),
            ],
        ),
    ]
