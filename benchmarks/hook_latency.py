"""The Claude Code Stop hook's cost with and without a running `remecli serve` (issue 22.3/4:
under 100 ms when serve runs).

Runs the real hook (`integrations/claude-code/remecli_stop_hook.py`, with `python -S`: it needs
only the standard library) `--runs` times on a realistic transcript, each time as a new session,
in two modes on one fresh memory:

- with serve: a `remecli serve` runs on the memory; the hook hands it the transcript's path;
- without: no server (`REMECLI_NO_DAEMON=1`); the hook starts a detached `remecli import`.

For each run it times the hook's own wall time (start → exit, what Claude Code waits for), its
CPU time (user + system: what the machine's load does not inflate) and the time until the
conversation is stored (`sessions/claude-<id>.jsonl` holds every message); p50/p95/max are
printed per mode. `--only-serve` skips the slow mode without a server.

Reproduce:  nice -n 5 python benchmarks/hook_latency.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "benchmarks"))
from serve_process import served, wait_for_index  # noqa: E402

HOOK = ROOT / "integrations" / "claude-code" / "remecli_stop_hook.py"
FIXTURE = ROOT / "tests" / "surfaces" / "fixtures" / "claude_code_session.jsonl"
MESSAGES = 5  # what the fixture records
GIVE_UP_SECONDS = 120.0
SETTINGS = [
    "llm.api_key=sk-unused",
    "llm.base_url=http://127.0.0.1:9/v1",
    "search.embedding.backend=none",
    "memory.dream.auto=false",
]


def stored(root: Path, session: str) -> bool:
    path = root / "sessions" / f"claude-{session}.jsonl"
    try:
        return path.read_text(encoding="utf-8").count('"role"') >= MESSAGES
    except OSError:
        return False


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(root: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(hook wall time, hook CPU time, time until stored) for one new session, in seconds."""
    session = str(uuid.uuid4())
    event = {"session_id": session, "transcript_path": str(FIXTURE), "cwd": str(root.parent)}
    cpu = children_cpu()
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-S", str(HOOK), f"working_dir={root}", *SETTINGS],
        input=json.dumps(event),
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    hook = time.perf_counter() - started
    cpu = children_cpu() - cpu
    while not stored(root, session):
        if time.perf_counter() - started > GIVE_UP_SECONDS:
            raise SystemExit(f"session {session} was never stored")
        time.sleep(0.01)
    return hook, cpu, time.perf_counter() - started


def report(mode: str, runs: list[tuple[float, float, float]]) -> None:
    for column, label in enumerate(("hook", "cpu", "stored")):
        values = [run[column] for run in runs]
        ordered = sorted(values)
        p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
        print(
            f"{mode:12} {label:6}  p50 {statistics.median(ordered) * 1000:7.0f} ms  "
            f"p95 {p95 * 1000:7.0f} ms  max {ordered[-1] * 1000:7.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only-serve", action="store_true", help="skip the mode without serve")
    args = parser.parse_args()
    base = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "REMECLI_COMMAND": f"{sys.executable} -m remecli",
        "REMECLI_HOOK_LOG": os.devnull,
    }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / ".reme"
        with served(["serve", "--port", "0"], root, SETTINGS) as (_process, url):
            token = (root / "serve.token").read_text().strip()
            wait_for_index(url, token, GIVE_UP_SECONDS, 0.2)
            with_serve = [one_run(root, base) for _ in range(args.runs)]
        alone = {**base, "REMECLI_NO_DAEMON": "1"}
        without = [] if args.only_serve else [one_run(root, alone) for _ in range(args.runs)]
    print(f"Claude Code Stop hook, {args.runs} runs each (python -S {HOOK.name})")
    report("with serve", with_serve)
    if without:
        report("without", without)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    only = " --only-serve" if args.only_serve else ""
    print(f"reproduce: nice -n 5 python benchmarks/hook_latency.py --runs {args.runs}{only}")


if __name__ == "__main__":
    main()
