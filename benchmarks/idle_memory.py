"""Resident memory of an idle remecli TUI in a real terminal (tmux), on a fresh working dir with
the default settings (local embedder), against the fake OpenAI-compatible server of the tests.
`--after-answer` first asks one question, waits for the answer to show, then measures the idle
app; it also names the heavy native libraries the process has mapped (/proc/PID/maps).
`--tree` measures other checkouts too, taking turns, so an old and a new tree compare in one run.
benchmarks/memory_parts.py splits the figure by what each import adds.

    python benchmarks/idle_memory.py [--seconds 75] [--after-answer] [--tree OLD] [--rounds 2]
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

ANSWER = "The scripted answer for the memory benchmark."
# native libraries whose presence in /proc/PID/maps says which heavy part is loaded
WATCHED = ("onnxruntime", "tiktoken", "faiss", "tantivy", "numpy", "tokenizers", "pydantic_core")


def app_processes(session: TmuxSession) -> list[psutil.Process]:
    """The python processes the tmux pane started (remecli itself)."""
    assert session.pane_pid is not None
    shell = psutil.Process(session.pane_pid)
    return [p for p in shell.children(recursive=True) if "python" in p.name()]


def mapped_libraries(pid: int) -> list[str]:
    """Which of WATCHED have a shared object mapped in the process."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return []
    return [name for name in WATCHED if name in maps]


def ask_and_wait(session: TmuxSession, question: str) -> float:
    """Type `question` once the app is ready; seconds until the scripted answer shows."""
    session.wait_for("ready", timeout=120)
    asked = time.monotonic()
    session.type(question)
    session.wait_for(ANSWER[:30], timeout=180)
    return time.monotonic() - asked


def idle_rss(
    tree: Path, base_url: str, seconds: float, after_answer: bool
) -> tuple[list[tuple[float, float]], list[str], str]:
    """(seconds idle, MB) samples of the remecli process's RSS while it sits idle, the WATCHED
    libraries mapped at the end, and a note (how long the answer took)."""
    with tempfile.TemporaryDirectory(prefix="remecli-idle-", ignore_cleanup_errors=True) as wd:
        env = {
            "PYTHONPATH": str(tree),
            "TERM": "xterm-256color",
            "REME_LLM_API_KEY": "sk-bench",
            "OPENAI_API_KEY": "sk-bench",
            "HOME": os.environ.get("HOME", wd),
        }
        command = [sys.executable, "-m", "remecli", "config=cli", f"llm.base_url={base_url}"]
        command += ["llm.model_name=gpt-4o-mini", f"working_dir={wd}/.reme"]
        session = TmuxSession(command, cwd=Path(wd), env=env)
        samples: list[tuple[float, float]] = []
        procs: list[psutil.Process] = []
        libraries: list[str] = []
        note = ""
        try:
            if after_answer:
                waited = ask_and_wait(session, "What is in memory?")
                note = f" (answer shown {waited:.1f} s after Enter)"
            start = time.monotonic()
            for at in (seconds / 4, seconds / 2, 3 * seconds / 4, seconds):
                time.sleep(max(0.0, start + at - time.monotonic()))
                procs = app_processes(session)
                rss = max((p.memory_info().rss for p in procs), default=0)
                samples.append((at, rss / 1e6))
            libraries = sorted({name for p in procs for name in mapped_libraries(p.pid)})
        finally:
            session.close()
            psutil.wait_procs(procs, timeout=20)  # let it finish writing before the cleanup
        return samples, libraries, note


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=75.0, help="idle time before the last sample"
    )
    parser.add_argument(
        "--after-answer", action="store_true", help="ask one question first, then measure"
    )
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    server = FakeOpenAIServer(strict=False)
    server.set_fallback(ANSWER)
    server.start()
    state = "after one answer" if args.after_answer else "fresh"
    print(f"load now {os.getloadavg()[0]:.1f}", flush=True)
    try:
        for _ in range(args.rounds):  # taking turns
            for tree in [*args.tree, ROOT]:
                samples, libraries, note = idle_rss(
                    tree, server.base_url, args.seconds, args.after_answer
                )
                shown = ", ".join(f"{at:.0f} s: {mb:.0f} MB" for at, mb in samples)
                print(f"{tree}: idle TUI RSS {state}{note}: {shown}", flush=True)
                print(f"  mapped: {', '.join(libraries) or 'none of ' + ', '.join(WATCHED)}")
    finally:
        server.stop()
    extra = "".join(f" --tree {t}" for t in args.tree)
    flags = " --after-answer" if args.after_answer else ""
    print(
        f"reproduce: python benchmarks/idle_memory.py --seconds {args.seconds:g}{flags}"
        f" --rounds {args.rounds}{extra}"
    )


if __name__ == "__main__":
    main()
