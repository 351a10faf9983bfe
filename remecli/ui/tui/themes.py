"""Theme files: load remecli's packaged themes and the user's own, and pick one by name.

Where themes come from, lowest precedence first (a later theme with the same name replaces an
earlier one):

1. Textual's builtin themes (`textual-dark`, `nord`, `gruvbox`, ...), so `theme=nord` works too;
2. the packaged `themes/*.yaml` (remecli-dark, remecli-light, year-of-the-horse);
3. the user's `<working_dir>/themes/*.yaml` (and `*.yml`).

A theme file is a YAML mapping whose keys are `textual.theme.Theme` fields; `name` defaults to
the file's stem and `primary` is required. A malformed file (bad YAML, unknown key, a value that
is not a colour) raises `ThemeError` naming the file — it is not skipped silently, because a
user who wrote a theme wants to know why it is not applied. Reading is a few small files; call
`load_themes` once at start-up (or via `asyncio.to_thread` from a running app).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from textual.app import App
from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from remecli.config.errors import ConfigError
from remecli.config.locations import Locations, bundled_dir
from remecli.config.sources import SafeLoader

DEFAULT_THEME = "remecli-dark"

_COLOUR_FIELDS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "success",
    "warning",
    "error",
)
_NUMBER_FIELDS = ("luminosity_spread", "text_alpha")
_BOOL_FIELDS = ("dark", "ansi")
_ALLOWED = {field.name for field in dataclasses.fields(Theme)}


class ThemeError(ConfigError):
    """A theme file that cannot be used, or a theme name that does not exist (one line)."""


def load_themes(working_dir: Path | None, *, include_builtin: bool = True) -> dict[str, Theme]:
    """All selectable themes by name: remecli's and the user's first, then Textual's builtins.

    Raises ThemeError for a malformed theme file, naming the file.
    """
    own: dict[str, Theme] = {}
    # the packaged themes are checked by the tests (tests/ui/test_themes.py), not at each start
    own.update(_load_folder(bundled_dir("themes"), checked=False))
    if working_dir is not None:
        own.update(_load_folder(Locations(working_dir).themes_dir))
    themes = dict(own)
    if include_builtin:
        for name, theme in BUILTIN_THEMES.items():
            themes.setdefault(name, theme)
    return themes


def resolve_theme(name: str, themes: Mapping[str, Theme]) -> Theme:
    """The theme called `name`; ThemeError listing the available names if there is none."""
    theme = themes.get(name)
    if theme is None:
        available = ", ".join(themes) or "(none)"
        raise ThemeError(f"unknown theme '{name}'; available: {available}")
    return theme


def register_themes(app: App[Any], themes: Iterable[Theme]) -> None:
    """Make the themes selectable in `app` (App.theme = name, and the command palette)."""
    for theme in themes:
        app.register_theme(theme)


def theme_from_file(path: Path, *, checked: bool = True) -> Theme:
    """Parse one theme file; ThemeError names the file and says what to fix. `checked`: also
    generate its colour system, which finds colours Textual cannot use (~3 ms a theme)."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)  # noqa: S506
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise _file_error(path, f"is not valid YAML{where}") from error
    except (OSError, UnicodeDecodeError) as error:
        raise _file_error(path, f"cannot be read ({error})") from error
    if not isinstance(data, dict):
        raise _file_error(path, "must be a YAML mapping of theme fields (name, primary, ...)")
    return _theme_from_mapping(path, data, checked)


def _load_folder(folder: Path, *, checked: bool = True) -> dict[str, Theme]:
    if not folder.is_dir():
        return {}
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
    themes: dict[str, Theme] = {}
    for path in files:
        theme = theme_from_file(path, checked=checked)
        themes[theme.name] = theme
    return themes


def _theme_from_mapping(path: Path, data: dict[Any, Any], checked: bool) -> Theme:
    unknown = sorted(str(key) for key in data if key not in _ALLOWED)
    if unknown:
        allowed = ", ".join(sorted(_ALLOWED))
        raise _file_error(path, f"has unknown key '{unknown[0]}'; allowed keys: {allowed}")
    fields = dict(data)
    name = fields.setdefault("name", path.stem)
    if not isinstance(name, str) or not name.strip():
        raise _file_error(path, "needs a non-empty text 'name'")
    if "primary" not in fields:
        raise _file_error(path, "needs a 'primary' colour, e.g. primary: \"#4fb3bf\"")
    for key in _COLOUR_FIELDS:
        if fields.get(key) is not None:
            _check_colour(path, key, fields[key])
    for key in _NUMBER_FIELDS:
        if key in fields and not isinstance(fields[key], int | float):
            raise _file_error(path, f"'{key}' must be a number, not {fields[key]!r}")
    for key in _BOOL_FIELDS:
        if key in fields and not isinstance(fields[key], bool):
            raise _file_error(path, f"'{key}' must be true or false, not {fields[key]!r}")
    variables = fields.get("variables") or {}
    if not isinstance(variables, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in variables.items()
    ):
        raise _file_error(
            path, "'variables' must map names to text values, e.g. border: \"#f2b632\""
        )
    fields["variables"] = variables
    theme = Theme(**fields)
    if not checked:
        return theme
    try:
        theme.to_color_system().generate()
    except (ColorParseError, ValueError, TypeError) as error:
        raise _file_error(path, f"has colours Textual cannot use ({error})") from error
    return theme


def _check_colour(path: Path, key: str, value: Any) -> None:
    try:
        Color.parse(str(value))
    except ColorParseError:
        raise _file_error(
            path, f'\'{key}\' is not a colour: {value!r}; use e.g. "#4fb3bf" or "teal"'
        ) from None


def _file_error(path: Path, problem: str) -> ThemeError:
    return ThemeError(f"theme file {path} {problem}; fix or remove the file")


def apply_themes(app: App[Any], working_dir: Path, name: str) -> str | None:
    """Register the theme files and select theme `name`; the problem, if any, as one line (for
    the caller to show once, as a notification).

    An unknown name, or a theme file that cannot be read, falls back to `remecli-dark` (the
    packaged themes still load)."""
    problem = ""
    try:
        themes = load_themes(working_dir)
    except ThemeError as exc:
        problem = str(exc)
        themes = load_themes(None)  # the packaged themes and Textual's: never broken
    register_themes(app, themes.values())
    try:
        chosen = resolve_theme(name, themes)
    except ThemeError as exc:
        problem = problem or str(exc)
        chosen = themes[DEFAULT_THEME]
    select_theme(app, chosen)
    if not problem:
        return None
    return f"{problem} (using the '{app.theme}' theme for now)"


def select_theme(app: App[Any], theme: Theme) -> None:
    """Make `theme` the app's theme. Before the app runs, a theme as dark (and ANSI) as the one
    the app was built with is set without Textual's theme watcher: the stylesheet is then first
    parsed in its colours, not parsed again and re-applied to every widget after the first
    frame's styles (a third of the start-up work of an empty app)."""
    current = app.current_theme
    if not app.is_running and (theme.dark, theme.ansi) == (current.dark, current.ansi):
        app.set_reactive(App.theme, theme.name)
        app.set_class(True, f"-theme-{theme.name}", update=False)  # as the watcher adds it
        app.stylesheet.set_variables(app.get_css_variables())  # as App.__init__ sets them
    else:
        app.theme = theme.name
