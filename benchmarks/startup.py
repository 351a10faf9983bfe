"""Startup: time from process start to "input ready" for remecli's TUI vs a bare Textual app.

"Input ready" = the app's first `on_ready` (first frame painted) with the input box focused.
Each run is a fresh `python` process, run headless, the apps taking turns (the order rotates)
so that load on the machine hits all alike. The clock starts in this process just before the
child is spawned, so interpreter start-up and imports are included; the child reports the
wall time and its own CPU time (`time.process_time`) at input ready. (psutil's process
`create_time` is not used: Linux gives it from the boot time in whole seconds, so it is off by
a constant of up to 1 s, added to both apps alike, which pulls the ratio towards 1.)
All read bytecode from a temp prefix written by the untimed first runs, as installed packages
have it. `--tree` adds other checkouts of remecli to the turns (each imported from its tree).
`--steps` says instead where remecli's time before the first frame goes: the CPU each step of
the path adds in a fresh process (medians over the runs), beside the bare app's two steps; it
also shows what the CLI does first that the turns leave out (its entry module, the log
redaction; `remecli key=value …` loads no click and no command table), and what the app does
right after its first frame (the settings checked by pydantic, the core the session holds
loaded). The turns report that moment too ("session started"): the input takes keys before it,
and a line sent meanwhile waits for it.

Reproduce:  python benchmarks/startup.py [--runs 7] [--tree /path/to/old/checkout] [--steps]
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

from benchmarks.import_steps import step_costs  # noqa: E402

READY = 'print(f"READY {time.time():.6f} {time.process_time():.6f}", flush=True)'
STARTED = 'print(f"STARTED {time.time():.6f}", flush=True)'

REMECLI = f"""
import time
import remecli
assert remecli.__file__.startswith("{{tree}}"), f"remecli imported from {{remecli.__file__}}"
ARGS = ["config=cli", "llm.api_key=sk-bench", "working_dir={{wd}}"]
try:  # as the CLI starts the TUI: the settings as read, checked right after the first frame
    from remecli.config.sources import read_sources
    from remecli.ui.start import Pending, prepare
    sources = read_sources(ARGS)
    settings = Pending(sources, lambda: prepare(sources, ARGS))
except ImportError:  # older checkouts: the settings checked before the app is built
    from remecli.config import load_settings
    settings = load_settings(ARGS)
from remecli.ui.tui import collector_pauses
getattr(collector_pauses, "hold", lambda: None)()  # as the CLI does (older checkouts: none)
from remecli.ui.tui.app import RemeApp
from remecli.ui.tui.widgets.chat_input import ChatInput
class Bench(RemeApp):
    def on_ready(self):
        super().on_ready()  # what the app does on its first frame, as in real use
        assert isinstance(self.focused, ChatInput)
        {READY}
        if getattr(self, "started", True):  # older checkouts: the session exists already
            self.started_now()
    async def session_started(self, note):
        await super().session_started(note)
        self.started_now()
    def started_now(self):
        {STARTED}
        self.exit()
Bench(settings).run(headless=True, size=(100, 30))
"""

BARE = f"""
import time
from textual.app import App
from textual.widgets import Input
class Bare(App):
    def compose(self):
        yield Input()
    def on_ready(self):
        self.query_one(Input).focus()
        {READY}
        self.exit()
Bare().run(headless=True, size=(100, 30))
"""


@dataclass(frozen=True)
class Kind:
    label: str
    code: str
    pythonpath: Path


@dataclass(frozen=True)
class Run:
    wall: float  # seconds from spawn to input ready
    cpu: float  # the child's CPU seconds at input ready
    started: float  # seconds from spawn to the settings checked and the session started


def one_run(kind: Kind, env: dict[str, str], cwd: Path) -> Run:
    """One fresh process, timed from just before it is spawned. It runs in `cwd`, not here:
    `python -c` puts its working directory before PYTHONPATH on sys.path."""
    start = time.time()
    out = subprocess.run(
        [sys.executable, "-c", kind.code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PYTHONPATH": str(kind.pythonpath)},
        cwd=cwd,
    )
    marks = {line.split()[0]: line.split()[1:] for line in out.stdout.splitlines() if line}
    if "READY" in marks:
        ready, cpu = marks["READY"]
        started = float(marks.get("STARTED", [ready])[0])  # the bare app: nothing to start
        return Run(float(ready) - start, float(cpu), started - start)
    raise RuntimeError(f"{kind.label}: no READY line:\n{out.stdout}\n{out.stderr}")


def kinds(trees: list[Path], wd: Path) -> list[Kind]:
    """The bare app, then remecli from each tree (each on its own working dir)."""
    out = [Kind("bare Textual app (one Input)", BARE, ROOT)]
    for n, tree in enumerate(trees):
        label = "remecli config=cli" if tree == ROOT else f"remecli [{tree}]"
        work = wd / f"wd{n}"
        work.mkdir()
        code = REMECLI.replace("{wd}", str(work)).replace("{tree}", str(tree))
        out.append(Kind(label, code, tree))
    return out


# Steps of `--steps`, in the order the app takes them; `mark()` gives the CPU at the first frame
# once the frame step has run (the app's exit and teardown are not counted).
MARK = """
import time
READY = []

def mark():
    return READY.pop() if READY else time.process_time()
"""
FRAME = """
class Frame({base}):{compose}
    def on_ready(self):
        {ready}
        READY.append(time.process_time())
        self.exit()
Frame({args}).run(headless=True, size=(100, 30))
"""
TEXTUAL = "import time\nfrom textual.app import App\nfrom textual.widgets import Input"
BARE_STEPS = {
    "interpreter, site, Textual (App, Input)": TEXTUAL,
    "compose, first frame, focus": FRAME.format(
        base="App",
        compose="\n    def compose(self):\n        yield Input()",
        ready="self.query_one(Input).focus()",
        args="",
    ),
}
REMECLI_STEPS = {
    "interpreter, site, Textual (App, Input)": TEXTUAL,
    "CLI: its entry, no click for settings alone (not in the turns)": "import remecli.__main__",
    "CLI: the log redaction (not in the turns)": (
        "from remecli.notes.log_redaction import install_log_redaction\ninstall_log_redaction()"
    ),
    "PyYAML": "import yaml",
    "read the settings (config files, environment, key=value)": (
        "from remecli.config.sources import read_sources\n"
        "from remecli.ui.start import Pending, StartFailed\n"
        "ARGS = ['config=cli', 'llm.api_key=sk-bench', 'working_dir={wd}']\n"
        "sources = read_sources(ARGS)\n"
        "def later():  # checked in the steps after the frame, one by one\n"
        "    raise StartFailed('checked later')\n"
        "settings = Pending(sources, later)"
    ),
    "the app's own modules (remecli.ui.tui.app)": (
        "from remecli.ui.tui import collector_pauses\ncollector_pauses.hold()\n"
        "from remecli.ui.tui.app import RemeApp"
    ),
    "construct, compose, first frame, focus": FRAME.format(
        base="RemeApp",
        compose="",
        ready="super().on_ready()  # as in real use",
        args="settings",
    ),
    "after the frame: pydantic (BaseModel)": "from pydantic import BaseModel",
    "after the frame: the settings models, validation, log set-up": (
        "from remecli.ui.start import prepare\nready = prepare(sources, ARGS)"
    ),
    "after the frame: the core the session holds (commands, agent facade, renderer)": (
        "import remecli.commands.chat_session, remecli.ui.tui.frontend, "
        "remecli.ui.tui.event_renderer"
    ),
}


def steps_table(runs: int) -> None:
    """Where the time before the first frame goes, step by step, for both apps."""
    with tempfile.TemporaryDirectory(prefix="remecli-startup-") as wd:
        remecli = {step: code.replace("{wd}", wd) for step, code in REMECLI_STEPS.items()}
        tables = (("bare Textual app", BARE_STEPS), ("remecli config=cli", remecli))
        costs = [[step_costs(steps, MARK) for _ in range(runs)] for _, steps in tables]
    for (label, steps), rows in zip(tables, costs, strict=True):
        before = [row[: len(row) - sum(s.startswith("after") for s in steps)] for row in rows]
        total = statistics.median(sum(row) for row in before)
        print(f"{label}: CPU to the first frame, median of {runs} fresh processes {ms(total)}")
        for n, step in enumerate(steps):
            print(f"  {ms(statistics.median(row[n] for row in rows))}  {step}")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout")
    parser.add_argument("--steps", action="store_true", help="where the time before it goes")
    args = parser.parse_args()
    if args.steps:
        steps_table(args.runs)
        print(f"reproduce: python benchmarks/startup.py --steps --runs {args.runs}")
        return
    with tempfile.TemporaryDirectory(prefix="remecli-startup-") as tmp:
        wd = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "REME_"))}
        env["PYTHONPYCACHEPREFIX"] = str(wd / "pycache")
        table = kinds([*args.tree, ROOT], wd)
        for kind in table:  # untimed: bytecode written, OS file cache warm
            one_run(kind, env, wd)
        runs: dict[str, list[Run]] = {kind.label: [] for kind in table}
        for n in range(args.runs):
            for kind in table[n % len(table) :] + table[: n % len(table)]:  # the order rotates
                runs[kind.label].append(one_run(kind, env, wd))
    bare = runs[table[0].label]
    print(
        f"runs: {args.runs} each (fresh process, headless, 100x30); load now {os.getloadavg()[0]:.1f}"
    )
    for label, mine in runs.items():
        wall = statistics.median(r.wall for r in mine)
        cpu = statistics.median(r.cpu for r in mine)
        line = f"{label:34s} median {ms(wall)} (min {ms(min(r.wall for r in mine)).strip()})"
        line += f"   CPU at ready {ms(cpu)}"
        if mine is not bare:
            pairs = [r.wall / b.wall for r, b in zip(mine, bare, strict=True)]
            cpu_ratio = cpu / statistics.median(r.cpu for r in bare)
            line += (
                f"\n{'':34s} ratio to bare: {wall / statistics.median(r.wall for r in bare):.2f}"
            )
            line += f" of the medians, {statistics.median(pairs):.2f} median of the turn-by-turn"
            line += f" ratios (target <= 1.3); CPU {cpu_ratio:.2f}"
            started = statistics.median(r.started for r in mine)
            line += f"\n{'':34s} settings checked, session started: median {ms(started)}"
        print(line)
    extra = "".join(f" --tree {t}" for t in args.tree)
    print(f"reproduce: python benchmarks/startup.py --runs {args.runs}{extra}")


if __name__ == "__main__":
    main()
