"""The one config loader: defaults < YAML files (in order) < environment < key=value overrides.
Reading the sources is `remecli.config.sources` (no pydantic); here they are merged, each key
checked against the settings model, and validated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from remecli.config.errors import ConfigError
from remecli.config.locations import MemoryChoice
from remecli.config.project import project_of
from remecli.config.settings import Settings
from remecli.config.sources import (
    ENV_VARS,
    SafeLoader,
    Sources,
    config_names,
    env_values,
    parse_value,
    read_sources,
    read_yaml,
    resolve_config,
)

__all__ = [
    "ENV_VARS",
    "SafeLoader",
    "Sources",
    "config_names",
    "env_values",
    "load_settings",
    "load_settings_and_memory",
    "parse_value",
    "read_sources",
    "read_yaml",
    "resolve_config",
    "settle",
]


def field_annotation(dotted: str) -> Any:
    """The type annotation of setting `a.b.c` (None if unknown; set_dotted reports that)."""
    model: Any = Settings
    annotation: Any = None
    for part in dotted.split("."):
        fields = getattr(model, "model_fields", {})
        if part not in fields:
            return None
        annotation = fields[part].annotation
        model = annotation
    return annotation


def typed_value(dotted: str, text: str) -> Any:
    """A command-line value for setting `dotted`: text settings take the text as written
    (`llm.api_key=123456` stays a string), except null for optional ones; others are typed."""
    annotation = field_annotation(dotted)
    if annotation is str:
        return text
    if annotation == (str | None):
        return None if text.strip().lower() in ("null", "none", "~") else text
    return parse_value(text)


def set_dotted(target: dict[str, Any], dotted: str, value: Any, source: str) -> None:
    """Set `a.b.c` in a nested dict, checking each key against the settings model."""
    parts = dotted.split(".")
    model: type[BaseModel] | None = Settings
    node = target
    for i, part in enumerate(parts):
        if model is not None and part not in model.model_fields:
            prefix = ".".join(parts[:i])
            allowed = ", ".join(model.model_fields)
            where = f" in '{prefix}'" if prefix else ""
            raise ConfigError(
                f"unknown setting '{dotted}' ({source}); allowed keys{where}: {allowed}"
            )
        annotation = model.model_fields[part].annotation if model is not None else None
        section = (
            annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel)
            else None
        )
        if model is not None and section is None and i < len(parts) - 1:
            raise ConfigError(
                f"unknown setting '{dotted}' ({source}); '{'.'.join(parts[: i + 1])}' has no sub-keys"
            )
        model = section
        if i == len(parts) - 1:
            node[part] = value
        else:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child


def merge_mapping(
    target: dict[str, Any], data: Mapping[str, Any], source: str, prefix: str = ""
) -> None:
    """Merge a nested mapping into target, key by key, so unknown keys are named."""
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if value is None and _is_section(dotted):
            continue  # `llm:` with every key commented out: nothing to set
        if _is_section(dotted) and not isinstance(value, Mapping):
            raise ConfigError(
                f"setting '{dotted}' ({source}) is a section: give it indented `key: value` "
                f"lines, not {value!r}"
            )
        # a section (or an unknown key, so the error names the nested key) is merged key by
        # key; a setting that is itself a mapping (memory.vector.store) takes it whole
        nested = _is_section(dotted) or field_annotation(dotted) is None
        if isinstance(value, Mapping) and value and nested:
            merge_mapping(target, value, source, dotted + ".")
        else:
            set_dotted(target, dotted, value, source)


def _is_section(dotted: str) -> bool:
    annotation = field_annotation(dotted)
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def load_settings(
    args: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Build Settings from `config=a,b` and `key=value` args, the environment and `.env`;
    `working_dir` comes out absolute (a named one, else the project memory or the home)."""
    return load_settings_and_memory(args, environ, cwd)[0]


def load_settings_and_memory(
    args: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[Settings, MemoryChoice]:
    """`load_settings`, and which memory it chose and why (for `remecli where`)."""
    return settle(read_sources(args, environ, cwd))


def settle(sources: Sources) -> tuple[Settings, MemoryChoice]:
    """Merge the sources in order, each key checked against the settings model, and validate:
    ConfigError naming the key (and the source) that is unknown or whose value is not allowed."""
    data: dict[str, Any] = {}
    for path, config in sources.configs:
        merge_mapping(data, config, f"in {path}")
    for name, value in sources.env.items():
        set_dotted(data, ENV_VARS[name], value, f"from ${name}")
    for key, value in sources.overrides:
        set_dotted(data, key, typed_value(key, value), "on the command line")
    choice = sources.memory
    data["working_dir"] = str(choice.root)
    if data.get("project") is None:  # not named (`project=` alone names "none")
        data["project"] = project_of(choice.root, sources.cwd).name
    try:
        return Settings.model_validate(data), choice
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    """Turn pydantic's report into one line naming the key, the bad value and what is allowed."""
    err = exc.errors()[0]
    key = ".".join(str(p) for p in err["loc"]) or "settings"
    value = err.get("input")
    shown = f" (got {value!r})" if not isinstance(value, dict) else ""
    more = f"; {len(exc.errors()) - 1} more problem(s)" if len(exc.errors()) > 1 else ""
    message = err["msg"].removeprefix("Value error, ")  # a validator's own sentence
    return f"invalid setting '{key}'{shown}: {message}{more}"
