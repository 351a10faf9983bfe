"""The typed settings model: every key remecli understands, with its default."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from remecli.config.search import SearchSettings
from remecli.config.section import SettingsSection, checked_endpoint


class LLMSettings(SettingsSection, frozen=True):
    """The chat model: any OpenAI-compatible endpoint."""

    base_url: str = "https://api.openai.com/v1"
    api_key: str = ""
    model_name: str = "gpt-4o-mini"
    temperature: float | None = Field(default=None, ge=0, le=2)
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    supports_images: bool = False
    # run tool calls a model writes as text (```json, <tool_call>, <function=…>) like real ones
    text_tool_calls: bool = True
    # what the model costs, per million tokens (the status line shows each reply's cost when set)
    price_per_mtok_in: float | None = Field(default=None, ge=0)
    price_per_mtok_out: float | None = Field(default=None, ge=0)

    @field_validator("base_url")
    @classmethod
    def _with_scheme(cls, value: str) -> str:
        return checked_endpoint(value)


class ToolSettings(SettingsSection, frozen=True):
    """Limits and approval policy of the agent's tools."""

    workspace: str = ""
    approval: Literal["never", "dangerous", "always"] = "dangerous"
    bash_timeout: float = Field(default=120.0, gt=0)
    bash_max_timeout: float = Field(default=600.0, gt=0)
    max_output_bytes: int = Field(default=30_000, ge=1_000)
    max_output_lines: int = Field(default=1_000, ge=10)
    full_output_max_bytes: int = Field(default=10_000_000, ge=0)  # cut output kept on disk; 0: off
    read_max_lines: int = Field(default=2_000, ge=10)
    read_max_bytes: int = Field(default=50_000, ge=1_000)
    edit_max_bytes: int = Field(default=20_000_000, ge=1_000)  # `edit` refuses bigger files
    ls_limit: int = Field(default=500, ge=1)
    web_search_max_results: int = Field(default=5, ge=1, le=20)
    web_search_max_chars: int = Field(default=12_000, ge=500)
    tavily_api_key: str = ""
    tavily_base_url: str = ""


class MemoryHistorySettings(SettingsSection, frozen=True):
    """Versions kept of every memory file before it changes (`<working_dir>/.history/`)."""

    enabled: bool = True
    keep: int = Field(default=50, ge=1)


class DreamSettings(SettingsSection, frozen=True):
    """Auto Dream: consolidating topic cards into the digest."""

    auto: bool = True  # dream in the background when due (new cards, interval passed)
    max_units: int = Field(default=5, ge=1, le=50)
    interval_hours: float = Field(default=24.0, gt=0)
    max_cards: int = Field(default=40, ge=1)
    max_iters: int = Field(default=12, ge=2)
    review: bool = False  # a run's changes wait for approval (dream_approve) before the digest


class VectorMemorySettings(SettingsSection, frozen=True):
    """Vector-based memory inside the assistant (personal and tool memory; off by default)."""

    enabled: bool = False
    user_name: str = "user"
    store: dict[str, Any] = Field(default_factory=lambda: {"backend": "local"})


class MemorySettings(SettingsSection, frozen=True):
    """Session, compaction and long-term memory knobs."""

    token_encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base"
    keep_recent_tokens: int = Field(default=10_000, ge=0)
    # under context pressure, tool outputs longer than this (chars) are offloaded to tool_result/
    tool_result_threshold: int = Field(default=1_000, ge=100)
    retention_days: int = Field(default=7, ge=0)
    memory_md_head_lines: int = Field(default=200, ge=0)
    memory_md_max_tokens: int = Field(default=4_000, ge=0)
    summarize: bool = True
    redact_secrets: bool = True
    history: MemoryHistorySettings = Field(default_factory=MemoryHistorySettings)
    dream: DreamSettings = Field(default_factory=DreamSettings)
    vector: VectorMemorySettings = Field(default_factory=VectorMemorySettings)


class SyncSettings(SettingsSection, frozen=True):
    """Sync of the Markdown memory over git (`remecli sync init REMOTE`, `remecli sync`)."""

    machine: str = ""  # this machine's name in commits and conflict markers ("": the host name)
    auto: bool = False  # `remecli serve` syncs at start and every `interval_minutes` (set up first)
    interval_minutes: float = Field(default=15.0, gt=0)


class Settings(SettingsSection, frozen=True):
    """All of remecli's settings. Precedence: defaults < YAML < env < key=value."""

    working_dir: str = ".reme"
    # the current project, recorded on cards and transcripts and preferred by search ("": none);
    # the loader fills it in (config/project.py) unless `project=` / $REME_PROJECT names it
    project: str = ""
    language: Literal["", "zh"] = ""
    max_input_length: int = Field(default=128_000, ge=1_000)
    memory_compact_ratio: float = Field(default=0.7, gt=0, lt=1)
    theme: str = "remecli-dark"
    ui: Literal["tui", "plain"] = "tui"
    prompt: str | None = None
    resume: str | None = None
    llm: LLMSettings = Field(default_factory=LLMSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    sync: SyncSettings = Field(default_factory=SyncSettings)

    @model_validator(mode="after")
    def _check_limits(self) -> Settings:
        if self.tools.bash_timeout > self.tools.bash_max_timeout:
            raise ValueError("tools.bash_timeout must not exceed tools.bash_max_timeout")
        return self

    def with_runtime_params(
        self,
        max_input_length: int | None = None,
        memory_compact_ratio: float | None = None,
        language: str | None = None,
    ) -> Settings:
        """A validated copy with the runtime-changeable values that are given (not None)."""
        changes = {
            "max_input_length": max_input_length,
            "memory_compact_ratio": memory_compact_ratio,
            "language": language,
        }
        return self.with_changes({k: v for k, v in changes.items() if v is not None})
