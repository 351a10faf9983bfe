"""What the floor of `remecli -p` is made of: in a fresh process, the CPU seconds of importing,
in turn, remecli.llm (which defers what an answer does not use), pydantic, openai, mcp, then the
agentscope modules an answer runs on (what each step adds to what the ones before loaded), as
medians over the runs. benchmarks/oneshot.py measures the whole floor beside `-p`.

Reproduce:  python benchmarks/oneshot_floor.py [--runs 5]
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
    "remecli.llm (the deferral)": "remecli.llm",
    "pydantic": "pydantic.main",
    "openai (httpx2, aiohttp, its types)": "openai",
    "mcp (mcp_types, its server stack)": "mcp",
    "agentscope's own modules (jinja2, jsonschema, ...)": (
        "agentscope.agent, agentscope.event, agentscope.middleware, agentscope.state, "
        "agentscope.tool, agentscope.message, agentscope.model"
    ),
}

CPU = """
import resource

def mark():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
"""


def one_run() -> list[float]:
    """CPU seconds each step added, in one fresh process."""
    return step_costs({label: f"import {m}" if m else "" for label, m in STEPS.items()}, CPU)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    one_run()  # untimed: bytecode written, files cached
    runs = [one_run() for _ in range(args.runs)]
    parts = [statistics.median(run[n] for run in runs) for n in range(len(STEPS))]
    total = statistics.median(sum(run) for run in runs)
    print(f"runs: {args.runs}; load now {os.getloadavg()[0]:.1f}")
    for label, part in zip(STEPS, parts, strict=True):
        print(f"{label:52s} {part:5.2f} CPU-s  {100 * part / total:4.0f} %")
    print(f"{'total (median of the runs)':52s} {total:5.2f} CPU-s")
    print(f"reproduce: python benchmarks/oneshot_floor.py --runs {args.runs}")


if __name__ == "__main__":
    main()
