"""The documentation's library example (docs/library.md) runs as written (against the fake LLM server)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

LIBRARY_PAGE = Path(__file__).resolve().parents[2] / "docs" / "library.md"


def library_example() -> str:
    text = LIBRARY_PAGE.read_text(encoding="utf-8")
    section = text[text.index("# Library API") :]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


def test_readme_library_example_runs(fake_llm, memory_model, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "REME_LLM_API_KEY": "sk-test",
        "REME_LLM_BASE_URL": fake_llm.base_url,
        "REME_LLM_MODEL": "fake-model",
    }
    (tmp_path / "example.py").write_text(library_example())
    proc = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "written" in proc.stdout or "saved" in proc.stdout.lower()
    daily = list((tmp_path / ".reme" / "memory").glob("*.md"))
    assert daily and "make ship" in daily[0].read_text()
