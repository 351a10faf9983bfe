"""`SearchRequest`: one memory search, as every way into it declares it — the `memory_search`
job's params (MCP, HTTP and `remecli job` validate their arguments into it), what the agent's
tool, the CLI and the library build, and what `MemoryIndex.search` takes.

A None limit or floor is the search settings' default; `resolved` fills them (and the current
project, which a search without a `project` filter prefers a little) once, where the settings
are known, and the request travels down unchanged.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.config import JsonDict
from pydantic.json_schema import SkipJsonSchema

from remecli.config.search import SearchSettings


def _undescribed(schema: JsonDict) -> None:
    schema.pop("description", None)


class SearchRequest(BaseModel):
    """One memory search: the words, how many hits, and what to keep."""

    # the schema MCP and HTTP list is the job's: titled as before, described by the job
    model_config = ConfigDict(
        extra="forbid", frozen=True, title="SearchParams", json_schema_extra=_undescribed
    )

    query: str = Field(min_length=1, max_length=2_000, description="What to look for")
    max_results: int | None = Field(
        None, ge=1, le=50, description="Most hits to return (default: search.max_results)"
    )
    min_score: float | None = Field(
        None, ge=0.0, le=1.0, description="Drop hits scoring below this (default: search.min_score)"
    )
    source: str | None = Field(
        None,
        max_length=200,
        description="notes, transcripts or all; or a path prefix such as memory/ or MEMORY.md",
    )
    since: dt.date | None = Field(None, description="Only memory dated on or after (YYYY-MM-DD)")
    until: dt.date | None = Field(None, description="Only memory dated on or before (YYYY-MM-DD)")
    project: str | None = Field(
        None,
        max_length=200,
        description="Only memory recorded in this project (default: any, the current "
        "project's hits ranked a little higher)",
    )
    as_of: dt.date | None = Field(
        None,
        description="Answer as of this day (YYYY-MM-DD): timed claims valid then rank first; "
        "default today (superseded claims rank after current ones, marked with what replaced "
        "them)",
    )
    # the current project (filled by `resolved` from the settings; no caller declares it)
    prefer_project: SkipJsonSchema[str] = Field("", exclude=True)

    @field_validator("since", "until", mode="before")
    @classmethod
    def _a_day(cls, value: object, info: ValidationInfo) -> object:
        """'' is no date; a text that is not YYYY-MM-DD says what is expected."""
        if isinstance(value, str):
            value = value.strip()
            if not value:
                return None
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                name = info.field_name or "date"
                raise ValueError(f"{name} must be a date like 2025-01-31, got {value!r}") from None
        if isinstance(value, dt.datetime):
            return value.date()
        return value

    @field_validator("project")
    @classmethod
    def _named(cls, value: str | None) -> str | None:
        return value.strip() or None if value else None

    def resolved(self, settings: SearchSettings, project: str | None = None) -> SearchRequest:
        """This request with the settings' limit and floor where it names none, and `project`
        (the current one) as the preferred project; a resolved request comes back as it is."""
        update: dict[str, object] = {}
        if self.max_results is None:
            update["max_results"] = settings.max_results
        if self.min_score is None:
            update["min_score"] = settings.min_score
        if project is not None and project.strip() != self.prefer_project:
            update["prefer_project"] = project.strip()
        return self.model_copy(update=update) if update else self

    @property
    def limit(self) -> int:
        """The most hits to return (the request must be `resolved`)."""
        if self.max_results is None:
            raise ValueError("the search request has no max_results: resolve it first")
        return self.max_results

    @property
    def floor(self) -> float:
        """The lowest score kept (the request must be `resolved`)."""
        if self.min_score is None:
            raise ValueError("the search request has no min_score: resolve it first")
        return self.min_score
