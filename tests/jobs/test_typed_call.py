"""`JobRunner.call(TypedParams(...))`: the params name their job and its result (issue 40, item 2);
`answer(params)` is its JSON with `run`'s size limit; and the read models surfaces call."""

from __future__ import annotations

import pytest

from remecli.ops import JOBS, JobRunner
from remecli.ops.errors import InvalidParams, ReadOnlyRefused, TooLarge
from remecli.ops.file_jobs import EditParams
from remecli.ops.read_job import ReadParams, ReadResult
from remecli.ops.registry import JobParams, JobRegistry, JobResult, NoParams
from remecli.ops.view_jobs import FacetsParams


async def test_the_params_find_their_job_and_its_typed_result(runner: JobRunner) -> None:
    page = await runner.call(ReadParams(path="MEMORY.md", start_line=1, end_line=2, start_char=0))
    assert isinstance(page, ReadResult) and page.end_line == 2
    assert page.model_dump(mode="json") == await runner.run(
        "memory_read", {"path": "MEMORY.md", "end_line": 2}
    )


async def test_a_typed_call_is_checked_as_a_call_by_name(runner: JobRunner) -> None:
    frozen = JobRunner(runner.memory, read_only=True)
    with pytest.raises(ReadOnlyRefused, match="--read-only"):
        await frozen.call(EditParams.parse(path="MEMORY.md", old="stg-7", new="x"))
    small = JobRunner(runner.memory, max_result_bytes=100)
    with pytest.raises(TooLarge, match="ask for less"):  # the JSON a surface sends on
        await small.answer(ReadParams.parse(path="memory/2025-01-31.md"))
    page = await small.call(ReadParams.parse(path="memory/2025-01-31.md"))  # in-process
    assert page.model_dump(mode="json") == await runner.answer(
        ReadParams.parse(path="memory/2025-01-31.md")
    )


async def test_params_shared_by_several_jobs_cannot_name_one(runner: JobRunner) -> None:
    with pytest.raises(ValueError, match="several jobs take it"):
        await runner.call(NoParams())


def test_a_clients_values_are_refused_with_the_jobs_name() -> None:
    with pytest.raises(InvalidParams, match=r"^memory_read: start_line: "):
        ReadParams.parse(path="MEMORY.md", start_line=0)


def test_params_naming_another_result_are_refused() -> None:
    class Other(JobResult):
        x: int

    class Mine(JobResult):
        y: int

    class MineParams(JobParams[Other]):
        pass

    registry = JobRegistry()

    async def handler(ctx: object, params: MineParams) -> Mine:
        """A job whose params name the wrong result."""
        return Mine(y=1)

    with pytest.raises(ValueError, match="names Other as its result"):
        registry.define("thing", params=MineParams, result=Mine, read_only=True)(handler)  # type: ignore[arg-type]


async def test_facets_read_the_frontmatter_of_notes(runner: JobRunner) -> None:
    note = runner.context.root / "memory" / "2025-02-01" / "deploy.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("---\nname: Deploy\ntags: [ops, ci]\nproject: web, api\n---\nbody\n")
    found = await runner.call(FacetsParams(paths=["memory/2025-02-01/deploy.md", "x.txt"]))
    facets = found.notes["memory/2025-02-01/deploy.md"]
    assert (facets.name, facets.tags, facets.projects) == ("Deploy", ["ops", "ci"], ["web", "api"])
    assert list(found.notes) == ["memory/2025-02-01/deploy.md"]
    assert not JOBS.get("memory_facets").served  # Studio's read model, not a client's tool


async def test_a_client_cannot_reach_a_read_model_whatever_its_token(runner: JobRunner) -> None:
    from remecli.ops.errors import NotFound
    from remecli.surfaces.access import Gate
    from remecli.surfaces.tokens import Principal

    gate = Gate(runner)
    for principal in (Principal("admin", "admin"), Principal("reader", "read", "memory/**")):
        with pytest.raises(NotFound, match="no job 'memory_facets'"):
            await gate.run(principal, "memory_facets", {"paths": []}, "http")
    answer = await gate.run(
        Principal("admin", "admin"), "memory_read", {"path": "MEMORY.md"}, "http"
    )
    assert answer["total_lines"] == 3


def test_params_naming_their_result_belong_to_one_job() -> None:
    class OneResult(JobResult):
        x: int

    class OneParams(JobParams[OneResult]):
        pass

    async def first(ctx: object, params: OneParams) -> OneResult:
        """The first job."""
        return OneResult(x=1)

    async def second(ctx: object, params: OneParams) -> OneResult:
        """The second job."""
        return OneResult(x=2)

    registry = JobRegistry()
    registry.define("one", params=OneParams, result=OneResult, read_only=True)(first)  # type: ignore[arg-type]
    assert registry.for_params(OneParams).name == "one"
    with pytest.raises(ValueError, match="belongs to one job"):
        registry.define("two", params=OneParams, result=OneResult, read_only=True)(second)  # type: ignore[arg-type]


async def test_a_kept_version_reads_back_through_its_job(runner: JobRunner) -> None:
    from remecli.ops.errors import NotFound
    from remecli.ops.file_jobs import WriteParams
    from remecli.ops.history_jobs import HistoryParams, VersionParams

    for text in ("# notes\n- one\n", "# notes\n- two\n"):
        await runner.call(
            WriteParams.parse(path="memory/notes.md", content=text, allow_shrink=True)
        )
    kept = (await runner.call(HistoryParams(path="memory/notes.md"))).versions
    texts = [
        (await runner.call(VersionParams(path="memory/notes.md", version=v.version))).content
        for v in kept
    ]
    assert "# notes\n- one\n" in texts
    with pytest.raises(NotFound, match="only memory files are versioned"):
        await runner.call(VersionParams(path="sessions/x.jsonl", version=1))
    with pytest.raises(NotFound):
        await runner.call(VersionParams(path="memory/notes.md", version=999))


def test_a_lower_layers_request_is_refused_with_its_jobs_name() -> None:
    from remecli.ops.registry import parse_params
    from remecli.ops.search_jobs import SearchRequest

    assert parse_params(SearchRequest, query="deploy", max_results=20).max_results == 20
    with pytest.raises(InvalidParams, match=r"^memory_search: as_of: "):  # as `run` says it
        parse_params(SearchRequest, query="deploy", as_of="someday")


async def test_studio_search_answers_as_memory_search_by_name(runner: JobRunner) -> None:
    from remecli.surfaces.studio.library import search

    by_name = await runner.run("memory_search", {"query": "stg-7", "max_results": 20})
    assert by_name["results"]
    assert await search(runner, "stg-7", None) == by_name
    assert (await search(runner, "stg-7", "memory/"))["results"] == [
        hit for hit in by_name["results"] if hit["path"].startswith("memory/")
    ]
