"""The window paints before the agent runtime loads: importing the TUI never imports agentscope
(a regression once made start-up 4.7x a bare Textual app)."""

from __future__ import annotations

import subprocess
import sys


def test_the_tui_module_does_not_import_the_agent_runtime() -> None:
    code = (
        "import sys, remecli.ui.tui.app, remecli.ui.plain; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('agentscope', 'openai')); "
        "print(loaded); raise SystemExit(1 if loaded else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
