"""`config=cli` really reads the packaged file, and every key in it reaches the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from remecli.config import load_settings
from remecli.config import sources as sources_module
from remecli.config.locations import bundled_dir


def _leaves(tree: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            out += _leaves(value, dotted + ".")
        else:
            out.append((dotted, value))
    return out


def _get(settings: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        settings = getattr(settings, part)
    return settings


def test_every_key_of_the_packaged_cli_config_reaches_the_settings(tmp_path: Path) -> None:
    packaged = yaml.safe_load((bundled_dir("config") / "cli.yaml").read_text(encoding="utf-8"))
    settings = load_settings(["config=cli"], environ={}, cwd=tmp_path)
    leaves = _leaves(packaged)
    assert len(leaves) >= 10
    for dotted, value in leaves:
        assert _get(settings, dotted) == value, dotted


def test_config_cli_is_read_from_the_packaged_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "packaged"
    folder.mkdir()
    (folder / "cli.yaml").write_text("llm:\n  model_name: from-the-packaged-file\n")
    monkeypatch.setattr(sources_module, "bundled_dir", lambda name: folder)
    work = tmp_path / "work"
    work.mkdir()
    settings = load_settings(["config=cli"], environ={}, cwd=work)
    assert settings.llm.model_name == "from-the-packaged-file"
    assert load_settings([], environ={}, cwd=work).llm.model_name != "from-the-packaged-file"
