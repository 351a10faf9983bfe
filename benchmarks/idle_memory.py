"""Resident memory of an idle remecli TUI in a real terminal (tmux), on a fresh working dir with
the default settings (local embedder), against the fake OpenAI-compatible server of the tests.
`--tree` measures other checkouts too, taking turns, so an old and a new tree compare in one run.

    python benchmarks/idle_memory.py [--seconds 75] [--tree /path/to/old/checkout] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.tmux_driver import TmuxSession  # noqa: E402
from tests.fakes.fake_openai import FakeOpenAIServer  # noqa: E402


def idle_rss(tree: Path, base_url: str, seconds: float) -> list[tuple[float, float]]:
    """(seconds since start, MB) samples of the remecli process's RSS while it sits idle."""
    with tempfile.TemporaryDirectory(prefix="remecli-idle-", ignore_cleanup_errors=True) as wd:
        env = {
            "PYTHONPATH": str(tree),
            "TERM": "xterm-256color",
            "REME_LLM_API_KEY": "sk-bench",
            "HOME": os.environ.get("HOME", wd),
        }
        command = [sys.executable, "-m", "remecli", "config=cli", f"llm.base_url={base_url}"]
        command += ["llm.model_name=fake-model", f"working_dir={wd}/.reme"]
        session = TmuxSession(command, cwd=Path(wd), env=env)
        samples: list[tuple[float, float]] = []
        procs: list[psutil.Process] = []
        start = time.monotonic()
        try:
            for at in (seconds / 4, seconds / 2, 3 * seconds / 4, seconds):
                time.sleep(max(0.0, start + at - time.monotonic()))
                assert session.pane_pid is not None
                shell = psutil.Process(session.pane_pid)
                procs = [p for p in shell.children(recursive=True) if "python" in p.name()]
                rss = max((p.memory_info().rss for p in procs), default=0)
                samples.append((at, rss / 1e6))
        finally:
            session.close()
            psutil.wait_procs(procs, timeout=20)  # let it finish writing before the cleanup
        return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=75.0, help="idle time before the last sample"
    )
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    server = FakeOpenAIServer(strict=False)
    server.set_fallback("ok")
    server.start()
    try:
        for _ in range(args.rounds):  # taking turns
            for tree in [*args.tree, ROOT]:
                samples = idle_rss(tree, server.base_url, args.seconds)
                shown = ", ".join(f"{at:.0f} s: {mb:.0f} MB" for at, mb in samples)
                print(f"{tree}: idle TUI RSS {shown}", flush=True)
    finally:
        server.stop()
    extra = "".join(f" --tree {t}" for t in args.tree)
    print(f"reproduce: python benchmarks/idle_memory.py --seconds {args.seconds:g}{extra}")


if __name__ == "__main__":
    main()
