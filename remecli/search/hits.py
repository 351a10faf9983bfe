"""`SearchHit`: one hit of a memory search, typed from the index to the edge.

The index fills where it is and why (and keeps the chunk's text, which is never serialized);
the runtime adds the note's links, the `memory_search` job the timed claims it holds on
`as_of`. Each surface serializes it with `to_dict` (the `--json`, tool, MCP and HTTP shape).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

KNOWN_ONLY = ("session_id", "date", "name", "description", "tags", "project", "weak")
ADDED = ("links", "claims", "superseded")


class LinkedNote(BaseModel):
    """A note linked from or to a hit's file."""

    path: str
    name: str = ""
    description: str = ""


class HitLinks(BaseModel):
    """The hit's file's links: notes it links to (`out`) and notes linking to it (`in`)."""

    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True)

    out: list[LinkedNote] = Field(default_factory=list)
    in_: list[LinkedNote] = Field(default_factory=list, alias="in")


class ClaimMark(BaseModel):
    """A timed claim in (or resting on) the hit, and whether it held on the day asked."""

    text: str
    since: str = ""
    until: str = ""
    replaced_by: str = ""
    valid: bool


class Superseded(BaseModel):
    """None of the hit's claims held on the day asked: until when the last did, what replaced
    it, and whether they were only not true yet (`not_yet`)."""

    until: str
    replaced_by: str
    not_yet: bool


class SearchHit(BaseModel):
    """One hit: where it is (path relative to the working dir, 1-based lines) and why.

    `weak`: the hit barely matches the query: it scored under `ranking.WEAK_SCORE` before the
    transcript weight and the boosts (scores are absolute: the same from one query to the next).
    `text`: the chunk's whole text (what `snippet` shows a part of); never serialized.
    """

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    signals: list[str] = Field(default_factory=list)
    heading_path: str = ""
    source: str = "notes"
    session_id: str = ""
    date: str = ""
    name: str = ""
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    project: str = ""
    weak: bool = False
    links: HitLinks | None = None
    claims: list[ClaimMark] | None = None
    superseded: Superseded | None = None
    text: str = Field("", exclude=True)

    @model_serializer(mode="wrap")
    def _shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """Always path, start_line, end_line, score (4 decimals), snippet, signals,
        heading_path, source; the others only when known (`weak` only when true)."""
        data: dict[str, object] = handler(self)
        data["score"] = round(self.score, 4)
        for key in KNOWN_ONLY:
            if not data[key]:
                del data[key]
        for key in ADDED:
            if data[key] is None:
                del data[key]
        return data

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready mapping (the shape every surface prints)."""
        return self.model_dump(mode="json")
