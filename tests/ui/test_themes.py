"""Theme files: the packaged ones, a user's own, and the errors a user can act on."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.theme import BUILTIN_THEMES

from remecli.config.locations import bundled_dir
from remecli.ui.tui.themes import (
    DEFAULT_THEME,
    ThemeError,
    load_themes,
    register_themes,
    resolve_theme,
    theme_from_file,
)

PACKAGED = ("remecli-dark", "remecli-light", "year-of-the-horse")


def write_theme(working_dir: Path, filename: str, text: str) -> Path:
    folder = working_dir / "themes"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(text, encoding="utf-8")
    return path


def test_packaged_themes_load_and_are_complete():
    themes = load_themes(None)
    assert list(themes)[:3] == list(PACKAGED)
    assert themes[DEFAULT_THEME].dark is True
    assert themes["remecli-light"].dark is False
    for name in PACKAGED:
        theme = themes[name]
        assert theme.background and theme.foreground and theme.primary
        theme.to_color_system().generate()  # every colour is usable by Textual
    assert {path.stem for path in bundled_dir("themes").glob("*.yaml")} >= set(PACKAGED)


def test_the_packaged_themes_are_not_checked_again_at_each_start(tmp_path, monkeypatch):
    """The test above checks them; a start generates the colours of the chosen theme alone
    (~3 ms a theme saved before the first frame). A user's theme is still checked."""
    from textual.design import ColorSystem

    generated: list[str] = []
    real = ColorSystem.generate
    monkeypatch.setattr(ColorSystem, "generate", lambda self: generated.append("x") or real(self))
    load_themes(None)
    assert generated == []
    write_theme(tmp_path, "mine.yaml", 'primary: "#4fb3bf"\n')
    assert "mine" in load_themes(tmp_path) and generated == ["x"]


def test_builtin_textual_themes_are_accepted_unless_excluded():
    assert resolve_theme("nord", load_themes(None)) is BUILTIN_THEMES["nord"]
    assert "nord" not in load_themes(None, include_builtin=False)


def test_user_theme_in_working_dir_is_picked_up_and_overrides(tmp_path):
    write_theme(tmp_path, "mine.yml", 'primary: "#ff00ff"\nbackground: "#000000"\n')
    write_theme(tmp_path, "dark.yaml", 'name: remecli-dark\nprimary: "#123456"\ndark: true\n')
    themes = load_themes(tmp_path)
    mine = resolve_theme("mine", themes)  # name defaults to the file's stem
    assert mine.primary == "#ff00ff" and mine.background == "#000000"
    assert themes["remecli-dark"].primary == "#123456"  # the user's file wins
    assert "remecli-light" in themes


def test_missing_user_theme_folder_is_fine(tmp_path):
    assert set(load_themes(tmp_path, include_builtin=False)) == set(PACKAGED)


def test_unknown_theme_lists_the_available_names(tmp_path):
    write_theme(tmp_path, "mine.yaml", 'primary: "#ff00ff"\n')
    themes = load_themes(tmp_path, include_builtin=False)
    with pytest.raises(ThemeError) as caught:
        resolve_theme("solarised", themes)
    message = str(caught.value)
    assert message.startswith("unknown theme 'solarised'; available: ")
    for name in (*PACKAGED, "mine"):
        assert name in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("primary: [unclosed\n", "is not valid YAML at line"),
        ("- just\n- a list\n", "must be a YAML mapping"),
        ('primary: "#fff"\nprimry: "#000"\n', "unknown key 'primry'"),
        ('background: "#000000"\n', "needs a 'primary' colour"),
        ('primary: "not-a-colour"\n', "'primary' is not a colour: 'not-a-colour'"),
        ('primary: "#fff"\ndark: "yes please"\n', "'dark' must be true or false"),
        ('primary: "#fff"\nvariables: [1, 2]\n', "'variables' must map names"),
    ],
)
def test_malformed_user_theme_names_the_file(tmp_path, text, says):
    path = write_theme(tmp_path, "broken.yaml", text)
    with pytest.raises(ThemeError) as caught:
        load_themes(tmp_path)
    message = str(caught.value)
    assert str(path) in message
    assert says in message
    assert message.endswith("fix or remove the file")
    assert "\n" not in message


def test_theme_error_is_a_config_error():
    from remecli.config.errors import ConfigError

    assert issubclass(ThemeError, ConfigError)


async def test_themes_apply_to_a_running_app(tmp_path):
    write_theme(tmp_path, "mine.yaml", 'primary: "#ff00ff"\nbackground: "#101010"\n')
    themes = load_themes(tmp_path)
    app = App()
    async with app.run_test(size=(40, 10)) as pilot:
        register_themes(app, themes.values())
        for name in (*PACKAGED, "nord", "mine"):
            app.theme = name
            await pilot.pause()
            assert app.theme == name
        assert app.screen.styles.background.hex == "#101010"  # the user's colours are in use


def test_theme_from_file_reads_one_packaged_file():
    theme = theme_from_file(bundled_dir("themes") / "year-of-the-horse.yaml")
    assert theme.name == "year-of-the-horse"
    assert theme.variables["border"] == "#f2b632"


@pytest.mark.parametrize(
    ("theme", "parses_again"), [("remecli-dark", False), ("remecli-light", True)]
)
async def test_the_app_starts_in_its_theme_parsing_the_stylesheet_once(
    fake_llm, tmp_path, monkeypatch, theme, parses_again
):
    """A theme as dark as Textual's default is in the first parse of the stylesheet (no second
    parse and restyle of every widget at start); a light one is switched to as usual."""
    from textual.css.stylesheet import Stylesheet

    from tests.ui.test_app_pilot import make_app

    reparsed: list[Stylesheet] = []
    reparse = Stylesheet.reparse
    monkeypatch.setattr(Stylesheet, "reparse", lambda self: (reparsed.append(self), reparse(self)))
    app = make_app(fake_llm, tmp_path, f"theme={theme}")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == theme
        expected = resolve_theme(theme, load_themes(None)).background
        assert app.screen.styles.background.hex == str(expected).upper()
        assert bool(reparsed) is parses_again
