"""Small files with one purpose: no module of the package is over 400 lines."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "remecli"
MAX_LINES = 400


def test_no_module_is_over_400_lines() -> None:
    too_long = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}, f"split these modules (lines): {too_long}"
