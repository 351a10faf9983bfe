"""Run named steps of Python code in turn in one fresh process and return what each added to a
measure (`mark`: the code of a function `mark()` defined in the child). Shared by
oneshot_floor.py (CPU seconds) and memory_parts.py (resident MB)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, os, sys
{mark}
marks = []
for label, code in json.loads(sys.argv[1]).items():
    exec(code)
    marks.append(mark())
print(json.dumps(marks), flush=True)
os._exit(0)
"""


def step_costs(steps: dict[str, str], mark: str) -> list[float]:
    """What each step added to `mark()`, in one fresh process with this checkout on its path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(mark=mark), json.dumps(steps)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    marks = json.loads(out)
    return [after - before for before, after in zip([0.0, *marks], marks, strict=False)]
