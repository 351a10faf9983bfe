"""One answer from the shell: `remecli -p hi` per fresh process, beside `remecli --help` and the
floor (importing only the agentscope modules an answer runs on, no remecli code; then the same
with the packages an answer does not use deferred, as `remecli.llm` does), against the
fake OpenAI-compatible server of the tests. Each kind takes its turn in every round (order
rotating), so load on the machine hits all alike; `--tree` adds other checkouts to the turns.

Per run: CPU seconds (user + sys of the child, from wait4), wall seconds to the first byte of the
answer on stdout and to exit, and the child's peak resident memory (ru_maxrss). The working dir is warm (one untimed `-p` first), as in daily use;
every run leaves its own failed summary pending (the fake model answers text, no tool call),
which the next run must leave alone. Python writes bytecode to a temp prefix (warmed by the
untimed runs), as an installed wheel has it; `--no-bytecode` compiles every module every run
(what PYTHONDONTWRITEBYTECODE=1 in a checkout does).

Reproduce:  python benchmarks/oneshot.py [--runs 5] [--tree /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.fake_openai import FakeOpenAIServer  # noqa: E402

FLOOR = (  # the imports alone: ends as -p does, without freeing the modules one by one
    "import os, agentscope.agent, agentscope.event, agentscope.middleware, agentscope.state, "
    "agentscope.tool, agentscope.message, agentscope.model; os._exit(0)"
)
# The same, with the packages an answer does not use deferred as remecli defers them (the
# floor of this tree's -p; remecli.llm installs the deferral and imports nothing else).
FLOOR_DEFERRED = FLOOR.replace("import os, ", "import os, remecli.llm, ")


@dataclass
class Run:
    cpu: float
    first_byte: float
    wall: float
    peak_mb: float


@dataclass(frozen=True)
class Kind:
    label: str
    command: list[str]
    pythonpath: Path


def timed(kind: Kind, env: dict[str, str], cwd: Path) -> Run:
    """One fresh process: CPU (user+sys), wall to its first stdout byte and to its exit."""
    start = time.perf_counter()
    child = subprocess.Popen(
        kind.command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(kind.pythonpath)},
    )
    assert child.stdout is not None
    first = child.stdout.read(1)
    first_byte = time.perf_counter() - start
    rest = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{kind.label} exited {child.returncode}: {(first + rest)[:300]!r}")
    if kind.label.startswith("-p") and (first + rest).strip() != b"hello":
        raise RuntimeError(f"{kind.label} answered {(first + rest)[:300]!r}")
    return Run(usage.ru_utime + usage.ru_stime, first_byte, wall, usage.ru_maxrss / 1024)


def kinds(trees: list[Path], base_url: str, work: Path) -> list[Kind]:
    """--help, the agentscope floor, and `-p hi` per tree (each on its own working dir)."""
    out = [
        Kind("--help", [sys.executable, "-m", "remecli", "--help"], ROOT),
        Kind("floor: import agentscope", [sys.executable, "-c", FLOOR], ROOT),
        Kind("floor, deferred as remecli.llm", [sys.executable, "-c", FLOOR_DEFERRED], ROOT),
    ]
    for n, tree in enumerate(trees):
        label = "-p hi" if tree == ROOT else f"-p hi  [{tree}]"
        command = [sys.executable, "-m", "remecli", f"llm.base_url={base_url}"]
        command += ["llm.model_name=gpt-4o-mini", f"working_dir={work / f'wd{n}'}", "-p", "hi"]
        out.append(Kind(label, command, tree))
    return out


def show(label: str, runs: list[Run]) -> None:
    cpu = statistics.median(r.cpu for r in runs)
    first = statistics.median(r.first_byte for r in runs)
    wall = statistics.median(r.wall for r in runs)
    peak = statistics.median(r.peak_mb for r in runs)
    print(
        f"{label:34s} CPU {cpu:5.2f} s (min {min(r.cpu for r in runs):5.2f})   "
        f"answer at {first:5.2f} s   exit at {wall:5.2f} s   peak {peak:4.0f} MB"
        f"   (medians of {len(runs)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--no-bytecode", action="store_true", help="compile every module each run")
    args = parser.parse_args()
    server = FakeOpenAIServer(strict=False)
    server.set_fallback("hello")
    server.start()
    with tempfile.TemporaryDirectory(prefix="remecli-oneshot-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "REME_"))}
        env |= {"OPENAI_API_KEY": "sk-bench", "HOME": str(work)}
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        table = kinds([*args.tree, ROOT], server.base_url, work)
        try:
            for kind in table:  # untimed: the working dirs made, bytecode written, files cached
                timed(kind, env, work)
            results: dict[str, list[Run]] = {kind.label: [] for kind in table}
            for n in range(args.runs):
                turn = table[n % len(table) :] + table[: n % len(table)]  # the order rotates
                for kind in turn:
                    results[kind.label].append(timed(kind, env, work))
        finally:
            server.stop()
    load = os.getloadavg()[0]
    bytecode = "none (compiled each run)" if args.no_bytecode else "cached"
    print(f"runs: {args.runs} each, taking turns; bytecode {bytecode}; load now {load:.1f}")
    for label, runs in results.items():
        show(label, runs)
    extra = "".join(f" --tree {t}" for t in args.tree)
    flag = " --no-bytecode" if args.no_bytecode else ""
    print(f"reproduce: python benchmarks/oneshot.py --runs {args.runs}{extra}{flag}")


if __name__ == "__main__":
    main()
