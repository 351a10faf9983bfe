"""The sources of the settings, read but not yet checked: the YAML files named by `config=`, the
environment (and `.env`), the command line's `key=value` pairs, and the memory they choose. No
pydantic here: the TUI reads these (its theme, its memory) before its first frame and checks them
against the settings model (`remecli.config.loader.settle`) right after."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from remecli.config.errors import ConfigError
from remecli.config.locations import MemoryChoice, bundled_dir, choose_memory

# Environment variable -> dotted setting. Documented in docs/configuration.md.
ENV_VARS: dict[str, str] = {
    "REME_LLM_API_KEY": "llm.api_key",
    "REME_LLM_BASE_URL": "llm.base_url",
    "REME_LLM_MODEL": "llm.model_name",
    "REME_EMBEDDING_API_KEY": "search.embedding.api_key",
    "REME_EMBEDDING_BASE_URL": "search.embedding.base_url",
    "REME_EMBEDDING_MODEL": "search.embedding.model_name",
    "REME_WORKING_DIR": "working_dir",
    "REME_PROJECT": "project",
    "TAVILY_API_KEY": "tools.tavily_api_key",
}


def parse_value(text: str) -> Any:
    """Type a command-line value: true/false, null, int, float, JSON list/object, else string."""
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("null", "none", "~"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.strip()[:1] in ("[", "{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"value {text!r} looks like JSON but does not parse: {exc.msg}"
            ) from None
    return text


def config_names() -> list[str]:
    """Names of the config files that ship with remecli."""
    return sorted(p.stem for p in bundled_dir("config").glob("*.yaml"))


def resolve_config(name: str, cwd: Path) -> Path:
    """Find a config by name (packaged folder, then cwd) or by path."""
    candidates: list[Path] = []
    as_path = Path(name).expanduser()
    if as_path.suffix in (".yaml", ".yml") or os.sep in name:
        candidates.append(as_path if as_path.is_absolute() else cwd / as_path)
    else:
        candidates += [
            bundled_dir("config") / f"{name}.yaml",
            cwd / f"{name}.yaml",
            cwd / f"{name}.yml",
        ]
    for path in candidates:
        if path.is_file():
            return path
    raise ConfigError(
        f"unknown config '{name}': no file {', '.join(str(p) for p in candidates)}; "
        f"packaged configs are: {', '.join(config_names()) or '(none)'}"
    )


try:
    from yaml import CSafeLoader as _SafeParser
except ImportError:  # PyYAML built without libyaml
    from yaml import SafeLoader as _SafeParser  # type: ignore[assignment]


class SafeLoader(_SafeParser):
    """PyYAML's safe loader, on libyaml's parser when PyYAML has it (~10x faster than the pure
    Python one; the config and the themes are read before the first frame)."""


class _UniqueKeyLoader(SafeLoader):
    """PyYAML's safe loader that refuses a key given twice in one mapping (PyYAML keeps the
    last one silently, which drops a whole block of settings)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise DuplicateKeyError(key, seen[key], line)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


class DuplicateKeyError(yaml.YAMLError):
    """A mapping key given twice (first and second line numbers, 1-based)."""

    def __init__(self, key: Any, first_line: int, line: int) -> None:
        super().__init__(f"duplicated key '{key}'")
        self.key, self.first_line, self.line = key, first_line, line


def read_yaml(path: Path) -> dict[str, Any]:
    """Load one YAML config file as a mapping, with a one-line error if it is malformed."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"config {path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line "
            f"{line}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except DuplicateKeyError as exc:
        raise ConfigError(
            f"duplicated key '{exc.key}' in {path} line {exc.line} (first given on line "
            f"{exc.first_line}); keep one and merge the settings under it"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is not None and _tab_at(text, mark.line, mark.column):
            raise ConfigError(
                f"malformed YAML in {path}:{mark.line + 1}: a tab character (column "
                f"{mark.column + 1}); YAML indents with spaces only, replace the tab with spaces"
            ) from None
        where = f" line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"malformed YAML in {path}{where}: {problem}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must be a mapping of settings, not {type(data).__name__}")
    return data


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether YAML stopped at a tab (libyaml's message does not name the character)."""
    lines = text.splitlines()
    return line < len(lines) and "\t" in lines[line][: column + 1]


def env_values(environ: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Environment settings; a `.env` in cwd fills in what the real environment lacks."""
    merged: dict[str, str] = {}
    dotenv_path = cwd / ".env"
    if dotenv_path.is_file():
        from dotenv import dotenv_values  # only then: most starts have no .env to read

        try:
            found = dotenv_values(dotenv_path, encoding="utf-8")
        except UnicodeDecodeError as exc:
            line = dotenv_path.read_bytes()[: exc.start].count(b"\n") + 1
            raise ConfigError(
                f"{dotenv_path} is not UTF-8 text (line {line}); save it as UTF-8 or remove it"
            ) from None
        except OSError as exc:
            raise ConfigError(f"cannot read {dotenv_path}: {exc.strerror}") from None
        merged.update({k: v for k, v in found.items() if v is not None})
    merged.update({k: v for k, v in environ.items() if v})  # an empty variable doesn't hide .env
    return {name: merged[name] for name in ENV_VARS if merged.get(name)}


@dataclass(frozen=True)
class Sources:
    """What the settings are made of, lowest precedence first: the config files (path, mapping)
    in order, the environment's settings (variable -> value), the command line's `key=value`
    pairs as typed; and the memory they choose."""

    configs: tuple[tuple[Path, dict[str, Any]], ...]
    env: Mapping[str, str]
    overrides: tuple[tuple[str, str], ...]
    memory: MemoryChoice
    cwd: Path

    def raw(self, key: str) -> Any:
        """Top-level setting `key` as the sources give it (the last one wins; None if none
        does), unchecked: what the first frame needs (`theme`, `ui`) before validation."""
        return _given(self.configs, self.env, self.overrides, key)[0]


def _given(
    configs: Sequence[tuple[Path, Mapping[str, Any]]],
    env: Mapping[str, str],
    overrides: Sequence[tuple[str, str]],
    key: str,
) -> tuple[Any, str]:
    """The last value of top-level `key` among the sources, and which source gave it."""
    value: Any = None
    source = ""
    for path, config in configs:
        if key in config:
            value, source = config[key], f"{key} in {path}"
    for name, dotted in ENV_VARS.items():
        if dotted == key and name in env:
            value, source = env[name], f"${name}"
    for name, text in overrides:
        if name == key:
            value, source = text, f"{key}= on the command line"
    return value, source


def read_sources(
    args: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Sources:
    """Read `config=a,b` and `key=value` args, the environment and `.env`; ConfigError for an
    argument that is not key=value, an unknown config file or a malformed one."""
    environ = os.environ if environ is None else environ
    cwd = cwd or Path.cwd()
    overrides: list[tuple[str, str]] = []
    config_list: list[str] = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"argument {arg!r} is not key=value (e.g. config=cli llm.model_name=gpt-4o)"
            )
        if key == "config":
            config_list += [name.strip() for name in value.split(",") if name.strip()]
        else:
            overrides.append((key, value))
    paths = [resolve_config(name, cwd) for name in config_list]
    configs = tuple((path, read_yaml(path)) for path in paths)
    env = env_values(environ, cwd)
    explicit, source = _given(configs, env, overrides, "working_dir")
    memory = choose_memory(cwd, environ, str(explicit) if explicit else None, source)
    return Sources(configs, env, tuple(overrides), memory, cwd)
