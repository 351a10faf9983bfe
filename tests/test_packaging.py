"""A normal (non-editable) install carries config/ and themes/ inside the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_configs_themes_and_prompts(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    [wheel] = tmp_path.glob("remecli-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "remecli/_bundled/config/cli.yaml" in names
    assert {
        "remecli/_bundled/themes/remecli-dark.yaml",
        "remecli/_bundled/themes/remecli-light.yaml",
    } <= names
    assert "remecli/agent/prompts/system.zh.md" in names
    assert "remecli/knowledge/summary/prompts/summarize.md" in names
    assert any(n.endswith("entry_points.txt") for n in names)
