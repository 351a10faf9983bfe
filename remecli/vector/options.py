"""The reference ReMe's constructor options, read into the dicts this ReMe builds from.

`config_path` names a YAML file of the reference's layout (`llms.<name>`,
`embedding_models.default`, `vector_stores.default`; "vector" = none, the built-in defaults);
positional `key=value` arguments set keys of that layout (`vector_stores.default.backend=local`);
the explicit `default_*_config` dicts and `llm_api_key` & co. win over both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from remecli.config.errors import ConfigError
from remecli.config.loader import parse_value, read_yaml
from remecli.vector.config import ReMeConfigError
from remecli.vector.node import PERSONAL, PROCEDURAL, TOOL
from remecli.vector.values import ConfigSection, Settings

BUILT_IN_CONFIGS = ("vector", "default", "")
SECTIONS = ("llms", "embedding_models", "vector_stores", "token_counters")
# Keywords of the reference's Application that have nothing to configure here.
ACCEPTED_KEYWORDS = (
    "default_as_llm_config",
    "default_as_llm_formatter_config",
    "default_file_store_config",
    "default_file_watcher_config",
    "parser",
)


@dataclass
class ReMeOptions:
    """Everything the constructor was told, resolved: the named LLM configs, the embedding and
    store configs, and the memory targets declared up front."""

    llms: dict[str, Settings] = field(default_factory=dict)
    embedding: Settings = field(default_factory=dict)
    store: Settings = field(default_factory=dict)
    token_counter: Settings = field(default_factory=dict)
    targets: dict[str, str] = field(default_factory=dict)  # target name -> memory type


def read_config_file(config_path: str | Path) -> dict[str, Settings]:
    """The sections of a reference-layout YAML config ({} for the built-in "vector" config)."""
    if str(config_path) in BUILT_IN_CONFIGS:
        return {}
    path = Path(config_path).expanduser()
    if path.suffix not in (".yaml", ".yml") and not path.exists():
        path = path.with_suffix(".yaml")
    if not path.is_file():
        raise ReMeConfigError(
            f"config_path {str(config_path)!r}: no such file; give a YAML file with llms, "
            "embedding_models and vector_stores sections, or leave it at 'vector'"
        )
    try:
        data = read_yaml(path)
    except ConfigError as exc:
        raise ReMeConfigError(str(exc)) from None
    return {name: _section(data.get(name), name) for name in SECTIONS}


def _section(value: object, where: str) -> Settings:
    """A mapping of the config as a dict of its own ({} for a missing one)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ReMeConfigError(f"{where} must be a mapping of keys to values, not {value!r}")
    return {str(key): item for key, item in value.items()}


def apply_arguments(config: dict[str, Settings], args: Sequence[str]) -> None:
    """Set `section.name.key=value` arguments into `config` (values typed like the CLI's)."""
    for arg in args:
        key, sep, value = str(arg).partition("=")
        parts = key.split(".")
        if not sep or len(parts) < 3 or parts[0] not in SECTIONS:
            raise ReMeConfigError(
                f"argument {arg!r} is not section.name.key=value (e.g. "
                "vector_stores.default.backend=local); sections: " + ", ".join(SECTIONS)
            )
        node = config.setdefault(parts[0], {})
        for part in parts[1:-1]:
            inner = node.setdefault(part, {})
            if not isinstance(inner, dict):
                raise ReMeConfigError(f"argument {arg!r}: {part} is a value, not a section")
            node = inner
        node[parts[-1]] = parse_value(value)


def _default_of(config: Mapping[str, Settings], section: str) -> Settings:
    return _section(config.get(section, {}).get("default"), f"{section}.default")


def _only_keys(what: str, extra: Mapping[str, object]) -> None:
    unknown = sorted(set(extra) - set(ACCEPTED_KEYWORDS))
    if unknown:
        raise TypeError(f"ReMe() got unexpected keyword argument(s): {', '.join(unknown)}")


def resolve(
    args: Sequence[str],
    *,
    config_path: str | Path,
    llm: ConfigSection | None,
    embedding: ConfigSection | None,
    store: ConfigSection | None,
    token_counter: ConfigSection | None,
    llm_api_key: str | None,
    llm_base_url: str | None,
    embedding_api_key: str | None,
    embedding_base_url: str | None,
    target_user_names: Sequence[str] | None,
    target_task_names: Sequence[str] | None,
    target_tool_names: Sequence[str] | None,
    extra: Mapping[str, object],
) -> ReMeOptions:
    """Merge the constructor's arguments (see the module doc) into one `ReMeOptions`."""
    _only_keys("ReMe()", extra)
    config = read_config_file(config_path)
    apply_arguments(config, args)
    llms = {
        str(name): _section(value, f"llms.{name}")
        for name, value in (config.get("llms") or {}).items()
    }
    llms["default"] = {**llms.get("default", {}), **dict(llm or {})}
    keys = {"api_key": llm_api_key, "base_url": llm_base_url}
    for named in llms.values():
        for key, value in keys.items():
            if value and not named.get(key):
                named[key] = value
    embedding_config = {**_default_of(config, "embedding_models"), **dict(embedding or {})}
    for key, value in {"api_key": embedding_api_key, "base_url": embedding_base_url}.items():
        if value and not embedding_config.get(key):
            embedding_config[key] = value
    store_config = {**_default_of(config, "vector_stores"), **dict(store or {})}
    return ReMeOptions(
        llms=llms,
        embedding=embedding_config,
        store=store_config or {"backend": "local"},
        token_counter={**_default_of(config, "token_counters"), **dict(token_counter or {})},
        targets=declared_targets(target_user_names, target_task_names, target_tool_names),
    )


def declared_targets(
    users: Sequence[str] | None, tasks: Sequence[str] | None, tools: Sequence[str] | None
) -> dict[str, str]:
    """Target name -> memory type; a name declared for two types is refused (as the reference)."""
    targets: dict[str, str] = {}
    for kind, names in ((PERSONAL, users), (PROCEDURAL, tasks), (TOOL, tools)):
        for name in [names] if isinstance(names, str) else list(names or []):
            if name in targets:
                raise ValueError(f"target name {name!r} is already used for {targets[name]} memory")
            targets[str(name)] = kind
    return targets
