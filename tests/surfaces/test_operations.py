"""The operations layer is issue 20's list, and every surface serves the same set with the same
schemas: the CLI (`remecli job`), MCP (the server's tool list) and HTTP (OpenAPI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from remecli.ops import JOBS, JobResult, JobRunner
from remecli.surfaces.auth import ServeToken
from remecli.surfaces.cli.job import job_list
from remecli.surfaces.http_api import build_app
from remecli.surfaces.mcp_server import build_mcp_server
from tests.jobs.conftest import job_settings

ISSUE_OPERATIONS = {
    f"memory_{name}"
    for name in (
        "search",
        "read",
        "list",
        "write",
        "edit",
        "write_card",
        "links",
        "history",
        "restore",
        "record",
        "ingest",
        "dream",
        "reindex",
        "status",
        "rename",  # whole notes and their links (remecli links --rename/--delete/--dangling)
        "delete",
        "dangling",
        "dream_runs",  # dream review (issue 23): runs as changesets, revert, approve/reject
        "dream_run",
        "dream_revert",
        "dream_approve",
        "dream_reject",
        "health",  # index coverage and a change stamp (Studio's Health page and live pages)
        "stamp",
        "graph",  # the link graph as nodes and edges (Studio's Graph page)
        "changed_facts",  # superseded timed claims (issue 41: facts over time)
        "sync",  # sync over git (issue 42): pull, merge, push; its last outcome and conflicts
        "sync_status",
    )
}
# read models Studio and the CLI call in-process (issue 40, item 2): jobs, but not served to
# clients (MCP, HTTP, `remecli job`): a client pays for every tool listed and has memory_read
READ_MODELS = {
    "memory_resolve_links",
    "memory_facets",
    "memory_interests",
    "memory_session",
    "memory_links_rebuild",
    "memory_version",
    "memory_sessions",
    "memory_place_resources",
    "memory_prune_resources",
    "memory_model_refusal",
}
# vector memory's operations (issue 20, item 2; bulk import / export / reindex: issue 24)
VECTOR_MODULES = ("remecli.ops.vector_ops", "remecli.ops.vector_bulk_jobs")


def _shape(schema: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(property names, required names) of an object schema."""
    return set(schema.get("properties", {})), set(schema.get("required", []))


@pytest.fixture
def runner(tmp_path: Path) -> JobRunner:
    return JobRunner.from_settings(job_settings(tmp_path))  # not started: schemas only


def test_the_operations_are_the_issues_list() -> None:
    names = set(JOBS.names())
    assert names >= ISSUE_OPERATIONS | READ_MODELS
    assert {job.name for job in JOBS if not job.served} == READ_MODELS
    names -= READ_MODELS
    others = {
        n for n in names - ISSUE_OPERATIONS if JOBS.get(n).handler.__module__ not in VECTOR_MODULES
    }
    assert others == set()
    for job in JOBS:
        assert issubclass(job.result, JobResult) and job.output_schema()["type"] == "object"
    writing = {job.name for job in JOBS if not job.read_only}
    assert {"memory_write", "memory_edit", "memory_restore"} <= writing
    assert "memory_history" not in writing


async def test_mcp_lists_every_operation_with_its_schemas(runner: JobRunner) -> None:
    tools = await build_mcp_server(runner).list_tools()
    assert [tool.name for tool in tools] == [job.name for job in JOBS.served()]
    for tool in tools:
        job = JOBS.get(tool.name)
        # the same parameters, and the same ones required (a default_factory is optional too)
        assert _shape(tool.input_schema) == _shape(job.input_schema()), job.name
        assert tool.output_schema is not None
        assert _shape(tool.output_schema) == _shape(job.output_schema()), job.name


def test_http_routes_every_operation_with_its_schema(runner: JobRunner, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    app = build_app(runner, ServeToken("t" * 32, "--token"))
    spec = TestClient(app).get("/api/openapi.json").json()
    components = spec.get("components", {}).get("schemas", {})
    routed = {path.removeprefix("/api/") for path in spec["paths"]} - {
        "health",
        "tokens",
        "access-log",
        "import",  # the Stop hook's fast path to a running serve (admin only, not a job)
    }
    assert routed == {job.name for job in JOBS.served()}
    for job in JOBS.served():
        body = spec["paths"][f"/api/{job.name}"]["post"].get("requestBody")
        if body is None:
            assert not job.params.model_fields, job.name
            continue
        schema = body["content"]["application/json"]["schema"]
        schema = next((s for s in schema.get("anyOf", [schema]) if "$ref" in s), schema)
        if "$ref" in schema:
            schema = components[schema["$ref"].rsplit("/", 1)[1]]
        assert _shape(schema) == _shape(job.input_schema()), job.name


def test_the_cli_lists_every_operation() -> None:
    listed = job_list()
    for name in JOBS.names():
        assert (name in listed) == (name not in READ_MODELS)


def test_loading_the_operations_loads_no_agent_runtime() -> None:
    """Every `remecli job`/CLI command loads the operations layer; the agent runtime (agentscope,
    openai, mcp: ~3 s of imports) only comes with the one job that runs an agent."""
    import subprocess
    import sys

    code = (
        "import sys, remecli.ops; "
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('agentscope', 'openai', 'mcp', 'chromadb', 'faiss')); "
        "print(heavy); raise SystemExit(1 if heavy else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
