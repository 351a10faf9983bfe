"""What the floor of `remecli -p` is made of: in a fresh process, the CPU seconds of importing,
in turn, remecli.llm (which defers what an answer does not use), pydantic, openai, mcp, then the
agentscope modules an answer runs on (what each step adds to what the ones before loaded), as
medians over the runs. benchmarks/oneshot.py measures the whole floor beside `-p`.

Reproduce:  python benchmarks/oneshot_floor.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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

CHILD = """
import json, os, resource, sys

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

marks = []
for label, modules in json.loads(sys.argv[1]).items():
    if modules:
        exec("import " + modules)
    marks.append(cpu())
print(json.dumps(marks), flush=True)
os._exit(0)
"""


def one_run() -> list[float]:
    """CPU seconds each step added, in one fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(STEPS)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    marks = json.loads(out)
    return [after - before for before, after in zip([0.0, *marks], marks, strict=False)]


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
