"""Swagger UI is the `apidocs` extra: without its package `/api/docs` says how to add it, and the
OpenAPI document is served all the same."""

from __future__ import annotations

import sys

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from remecli.surfaces.http_docs import DOCS, OPENAPI, add_docs


def test_without_the_apidocs_extra_the_docs_page_says_how_to_add_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "swagger_ui_bundle", None)  # as if not installed
    app = FastAPI(title="remecli", openapi_url=OPENAPI, docs_url=None, redoc_url=None)
    add_docs(app)
    client = TestClient(app)
    docs = client.get(DOCS)
    assert docs.status_code == 404
    assert "pip install 'remecli[apidocs]'" in docs.json()["error"]
    assert client.get(OPENAPI).json()["info"]["title"] == "remecli"
