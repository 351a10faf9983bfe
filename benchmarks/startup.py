"""Startup: time from process start to "input ready" for remecli's TUI vs a bare Textual app.

"Input ready" = the app's first `on_ready` (first frame painted) with the input box focused.
Each run is a fresh `python` process, run headless, the two apps taking turns (order
alternating) so that load on the machine hits both alike; process start time comes from the OS
(psutil), so interpreter start-up and imports are included. Both read bytecode from a temp
prefix written by the untimed first runs, as installed packages have it (a checkout run with
PYTHONDONTWRITEBYTECODE=1 would compile every remecli module each run, and no Textual one).

Reproduce:  python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

REMECLI = """
import time, psutil
t0 = psutil.Process().create_time()
from remecli.config import load_settings
from remecli.ui.tui.app import RemeApp
from remecli.ui.tui.widgets.chat_input import ChatInput
class Bench(RemeApp):
    def on_ready(self):
        super().on_ready()  # starts the background agent boot, as in real use
        assert isinstance(self.focused, ChatInput)
        print(f"READY {time.time() - t0:.4f}")
        self.exit()
settings = load_settings(["config=cli", "llm.api_key=sk-bench", "working_dir={wd}"])
Bench(settings).run(headless=True, size=(100, 30))
"""

BARE = """
import time, psutil
t0 = psutil.Process().create_time()
from textual.app import App
from textual.widgets import Input
class Bare(App):
    def compose(self):
        yield Input()
    def on_ready(self):
        self.query_one(Input).focus()
        print(f"READY {time.time() - t0:.4f}")
        self.exit()
Bare().run(headless=True, size=(100, 30))
"""


def one_run(code: str, env: dict[str, str] | None = None) -> float:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    for line in out.stdout.splitlines():
        if line.startswith("READY "):
            return float(line.split()[1])
    raise RuntimeError(f"no READY line:\n{out.stdout}\n{out.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as wd:
        remecli_code = REMECLI.replace("{wd}", wd)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(wd, "pycache")
        one_run(remecli_code, env), one_run(BARE, env)  # bytecode written, OS file cache warm
        remecli, bare = [], []
        for n in range(args.runs):  # taking turns, order alternating: load hits both alike
            for code in (remecli_code, BARE) if n % 2 == 0 else (BARE, remecli_code):
                (remecli if code is remecli_code else bare).append(one_run(code, env))
    m_r, m_b = statistics.median(remecli), statistics.median(bare)
    pairs = [r / b for r, b in zip(remecli, bare, strict=True)]
    print(f"runs: {args.runs} each (fresh process, headless, 100x30)")
    print(
        f"bare Textual app (one Input)   median {m_b * 1000:7.1f} ms  (min {min(bare) * 1000:.1f}, max {max(bare) * 1000:.1f})"
    )
    print(
        f"remecli config=cli             median {m_r * 1000:7.1f} ms  (min {min(remecli) * 1000:.1f}, max {max(remecli) * 1000:.1f})"
    )
    print(
        f"ratio remecli / bare: {m_r / m_b:.2f} of the medians, {statistics.median(pairs):.2f} "
        "median of the turn-by-turn ratios  (target <= 1.3)"
    )
    print("reproduce: python benchmarks/startup.py --runs", args.runs)


if __name__ == "__main__":
    main()
