"""`/studio/api/…`: the JSON the page asks for. Each route adapts one call of `library` or
`changes` (which run the operations layer's jobs); the guard in `app` has already checked the
session, and on a POST the Origin and the CSRF token."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from remecli.ops import JobResult, JobRunner
from remecli.ops.claims_job import ChangedFactsParams
from remecli.ops.errors import InvalidParams, JobError
from remecli.ops.graph_job import GraphParams
from remecli.ops.health_job import HealthParams, StampParams
from remecli.ops.session_job import SessionParams
from remecli.ops.sync_jobs import SyncStatusParams
from remecli.ops.view_jobs import FacetsParams, InterestsParams
from remecli.surfaces.serving import STOPPING_KEY
from remecli.surfaces.studio import changes, library
from remecli.surfaces.studio.tasks import Tasks

T = TypeVar("T")


def _runner(request: Request) -> JobRunner:
    runner: JobRunner = request.app.state.runner
    return runner


def whole(result: JobResult) -> JSONResponse:
    """A read model's result as JSON, whole (a page Studio composes, as it did from many
    small reads: no size limit on the sum)."""
    return JSONResponse(result.model_dump(mode="json"))


def _arg(request: Request, name: str) -> str:
    value = request.query_params.get(name, "").strip()
    if not value:
        raise InvalidParams(f"`{name}` is missing from the query")
    return value


async def _body(request: Request) -> dict[str, object]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        raise InvalidParams("the body is not JSON") from None
    if not isinstance(body, dict):
        raise InvalidParams("the body must be a JSON object")
    return body


def _field(body: dict[str, object], name: str, kind: type[T]) -> T:
    value = body.get(name)
    if not isinstance(value, kind):
        raise InvalidParams(f"`{name}` must be a {kind.__name__}")
    return value


def _version(raw: str) -> int | str:
    if raw == changes.CURRENT:
        return raw
    if not raw.isdigit():
        raise InvalidParams(f"version {raw!r} is neither a number nor 'current'")
    return int(raw)


async def nav(request: Request) -> Response:
    return JSONResponse(await library.navigator(_runner(request)))


async def section(request: Request) -> Response:
    key = _arg(request, "section")
    found = library.SECTION_BY_KEY.get(key)
    if found is None:
        raise InvalidParams(f"no section {key!r}; one of {', '.join(library.SECTION_BY_KEY)}")
    listing = await library.section_files(_runner(request), found)
    paths = [f["path"] for f in listing["files"]]
    facets: dict[str, Any] = {}
    if found.key != "sessions":
        notes = (await _runner(request).call(FacetsParams(paths=paths))).notes
        facets = {path: facet.model_dump(mode="json") for path, facet in notes.items()}
    for entry in listing["files"]:
        entry.update(facets.get(entry["path"], {"name": "", "tags": [], "projects": []}))
    return JSONResponse(listing)


async def changed(request: Request) -> Response:
    return JSONResponse(await _runner(request).answer(ChangedFactsParams(since=None, limit=500)))


async def interests(request: Request) -> Response:
    return whole(await _runner(request).call(InterestsParams()))


async def note(request: Request) -> Response:
    return JSONResponse(await library.note_view(_runner(request), _arg(request, "path")))


async def session(request: Request) -> Response:
    return whole(await _runner(request).call(SessionParams(path=_arg(request, "path"))))


async def search(request: Request) -> Response:
    source = request.query_params.get("source") or None
    as_of = request.query_params.get("as_of") or None
    return JSONResponse(await library.search(_runner(request), _arg(request, "q"), source, as_of))


async def graph(request: Request) -> Response:
    query = request.query_params
    arguments: dict[str, Any] = {"scope": query.get("scope") or "digest"}
    if query.get("focus", "").strip():
        arguments["focus"] = query["focus"].strip()
    if query.get("depth", "").isdigit():
        arguments["depth"] = int(query["depth"])
    return JSONResponse(await _runner(request).answer(GraphParams.parse(**arguments)))


async def history(request: Request) -> Response:
    return whole(await changes.history(_runner(request), _arg(request, "path")))


async def diff(request: Request) -> Response:
    runner, path = _runner(request), _arg(request, "path")
    old, new = _version(_arg(request, "old")), _version(_arg(request, "new"))
    return JSONResponse(await changes.diff(runner, path, old, new))


async def preview(request: Request) -> Response:
    body = await _body(request)
    path, content = _field(body, "path", str), _field(body, "content", str)
    return JSONResponse(await library.render_text(_runner(request), path, content))


async def save(request: Request) -> Response:
    body = await _body(request)
    base = body.get("base_sha256")
    if base is not None and not isinstance(base, str):
        raise InvalidParams("`base_sha256` must be a string or null")
    path, content = _field(body, "path", str), _field(body, "content", str)
    done = await changes.save(_runner(request), path, content, base)
    if done.get("conflict"):
        return JSONResponse({**done, "code": "changed_on_disk"}, status_code=409)
    return JSONResponse(done)


async def rename(request: Request) -> Response:
    body = await _body(request)
    path, new_path = _field(body, "path", str), _field(body, "new_path", str)
    return JSONResponse(await changes.rename(_runner(request), path, new_path))


async def delete(request: Request) -> Response:
    body = await _body(request)
    return JSONResponse(await changes.delete(_runner(request), _field(body, "path", str)))


async def restore(request: Request) -> Response:
    body = await _body(request)
    path, version = _field(body, "path", str), _field(body, "version", int)
    return JSONResponse(await changes.restore(_runner(request), path, version))


def _tasks(request: Request) -> Tasks:
    tasks: Tasks = request.app.state.tasks
    return tasks


async def health(request: Request) -> Response:
    found = await _runner(request).answer(HealthParams())
    try:  # the last sync over git and its conflicts (None: sync is not set up)
        synced: dict[str, Any] | None = await _runner(request).answer(SyncStatusParams())
    except JobError:
        synced = None
    return JSONResponse({**found, "sync": synced, "tasks": _tasks(request).latest()})


async def stamp(request: Request) -> Response:
    paths = [p for p in request.query_params.getlist("path") if p.strip()]
    return JSONResponse(await _runner(request).answer(StampParams.parse(paths=paths)))


async def start_task(request: Request) -> Response:
    task = await _tasks(request).start(_field(await _body(request), "job", str))
    return JSONResponse(task.summary())


async def task_events(request: Request) -> Response:
    task = _tasks(request).get(_arg(request, "id"))
    stopping = request.scope.get(STOPPING_KEY)  # set by `serve` when it is asked to stop
    return StreamingResponse(
        _tasks(request).stream(task, stopping),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


def api_routes() -> list[Route]:
    """The routes under `/studio/api`."""
    return [
        Route("/nav", nav),
        Route("/section", section),
        Route("/note", note),
        Route("/search", search),
        Route("/session", session),
        Route("/health", health),
        Route("/interests", interests),
        Route("/changed", changed),
        Route("/stamp", stamp),
        Route("/tasks", start_task, methods=["POST"]),
        Route("/tasks/events", task_events),
        Route("/graph", graph),
        Route("/history", history),
        Route("/diff", diff),
        Route("/preview", preview, methods=["POST"]),
        Route("/save", save, methods=["POST"]),
        Route("/restore", restore, methods=["POST"]),
        Route("/rename", rename, methods=["POST"]),
        Route("/delete", delete, methods=["POST"]),
    ]
