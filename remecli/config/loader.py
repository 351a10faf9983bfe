"""The one config loader: defaults < YAML files (in order) < environment < key=value overrides."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from remecli.config.errors import ConfigError
from remecli.config.locations import MemoryChoice, bundled_dir, choose_memory
from remecli.config.project import project_of
from remecli.config.settings import Settings

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

    data: dict[str, Any] = {}
    memory_source = ""  # who named working_dir (the last one wins, like the value)
    for name in config_list:
        path = resolve_config(name, cwd)
        config = read_yaml(path)
        merge_mapping(data, config, f"in {path}")
        if config.get("working_dir"):
            memory_source = f"working_dir in {path}"
    for name, value in env_values(environ, cwd).items():
        set_dotted(data, ENV_VARS[name], value, f"from ${name}")
        if ENV_VARS[name] == "working_dir":
            memory_source = f"${name}"
    for key, value in overrides:
        set_dotted(data, key, typed_value(key, value), "on the command line")
        if key == "working_dir":
            memory_source = "working_dir= on the command line"
    explicit = data.get("working_dir")
    choice = choose_memory(cwd, environ, str(explicit) if explicit else None, memory_source)
    data["working_dir"] = str(choice.root)
    if data.get("project") is None:  # not named (`project=` alone names "none")
        data["project"] = project_of(choice.root, cwd).name
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
