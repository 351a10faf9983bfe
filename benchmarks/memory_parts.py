"""What the TUI's memory after an answer is made of: in a fresh process, the resident memory
(RSS, /proc/self/statm) that each step adds to what the ones before loaded, as medians over the
runs: the interpreter, the CLI and the Textual app, agentscope's modules (through the app's
agent runtime), tantivy, the o200k token encoding, and last, for scale, onnxruntime (the local
e5 embedder's runtime, which an answer does not load). benchmarks/idle_memory.py --after-answer
measures the whole app.

Reproduce:  python benchmarks/memory_parts.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.import_steps import step_costs  # noqa: E402

STEPS = {
    "interpreter and site": "",
    "remecli CLI + Textual app (remecli.ui.tui.app)": "import remecli.cli, remecli.ui.tui.app",
    "agentscope (agentscope.agent: mcp, openai)": "import agentscope.agent",
    "tantivy (the keyword index)": "import tantivy",
    "o200k token encoding (first count)": (
        "from remecli.llm.tokens import get_token_counter; get_token_counter().count('hello')"
    ),
    "onnxruntime (e5 runtime; not loaded by an answer)": "import onnxruntime",
}

RSS = """
def mark():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
"""


def one_run() -> list[float]:
    """MB of RSS each step added, in one fresh process."""
    return step_costs(STEPS, RSS)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    one_run()  # not counted: bytecode written, the encoding's cache file seeded
    runs = [one_run() for _ in range(args.runs)]
    parts = [statistics.median(run[n] for run in runs) for n in range(len(STEPS))]
    print(f"runs: {args.runs}; load now {os.getloadavg()[0]:.1f}")
    total = 0.0
    for label, part in zip(STEPS, parts, strict=True):
        total += part
        print(f"{label:56s} {part:6.1f} MB  (total {total:6.1f} MB)")
    print(f"reproduce: python benchmarks/memory_parts.py --runs {args.runs}")


if __name__ == "__main__":
    main()
