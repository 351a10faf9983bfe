"""The HTTP API's documentation: the OpenAPI document as the server really answers (its error
bodies and statuses, the bearer scheme, no 422s), and Swagger UI served offline from the
`swagger-ui-bundle` wheel, the `apidocs` extra (without it, `/api/docs` says how to add it and the
OpenAPI JSON stays)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

DOCS = "/api/docs"
ASSETS = "/api/docs/assets"
OPENAPI = "/api/openapi.json"


class ErrorBody(BaseModel):
    """Every error the API answers."""

    error: str = Field(description="What went wrong and what to do")
    code: str = Field(description="A stable name, e.g. not_found, forbidden, edit_conflict")


def _answer(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


COMMON_ERRORS: dict[int | str, dict[str, Any]] = {
    400: _answer("Parameters refused (invalid_params) or another request the caller can fix"),
    401: _answer("No bearer token, or an unknown one (unauthorized)"),
    403: _answer(
        "The token's scope or paths do not allow it (forbidden), the path is not a memory file "
        "(path_refused), or the server runs read-only (read_only)"
    ),
    404: _answer("No such file or folder (not_found)"),
    413: _answer("The request body or the result is over the limit (too_large)"),
    415: _answer("The body is not JSON (unsupported_media_type)"),
    421: _answer("The Host header is not this server's (misdirected)"),
    503: _answer("The search index is not open yet, or failed (unavailable)"),
}
WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    **COMMON_ERRORS,
    409: _answer("The change conflicts with the file as it is (edit_conflict)"),
}


def swagger_assets() -> Path | None:
    """Swagger UI's files from the installed `swagger-ui-bundle` wheel (None: not installed)."""
    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]
    except ImportError:
        return None
    path = Path(str(swagger_ui_path))
    return path if (path / "swagger-ui-bundle.js").is_file() else None


def add_docs(app: FastAPI) -> None:
    """`/api/docs` (offline Swagger UI) and a truthful `/api/openapi.json`."""
    assets = swagger_assets()
    if assets is not None:
        from starlette.staticfiles import StaticFiles

        app.mount(ASSETS, StaticFiles(directory=assets), name="swagger-assets")

        @app.get(DOCS, include_in_schema=False)
        async def docs() -> HTMLResponse:
            return get_swagger_ui_html(
                openapi_url=OPENAPI,
                title=f"{app.title} — docs",
                swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                swagger_css_url=f"{ASSETS}/swagger-ui.css",
                swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            )
    else:

        @app.get(DOCS, include_in_schema=False)
        async def no_docs() -> JSONResponse:
            message = (
                "the interactive docs need the swagger-ui-bundle package: pip install "
                f"'remecli[apidocs]'; the API is described at {OPENAPI}"
            )
            return JSONResponse({"error": message, "code": "not_found"}, status_code=404)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
        )
        for methods in schema.get("paths", {}).values():
            for operation in methods.values():
                operation.get("responses", {}).pop("422", None)
        schemas = schema.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
