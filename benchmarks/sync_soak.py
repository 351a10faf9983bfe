"""Sync soak (issue 42): two machines writing at once, syncing every few seconds, for minutes.

Two memory homes and a local bare remote; on each, a real `remecli serve` with `sync.auto` on
(a sync every `--sync-seconds` in the background, as a server for agents runs it). A driver
thread per home keeps calling that server's operations as an agent would: `memory_write_card`
(a card and its day page), `memory_write` and `memory_edit` on `MEMORY.md` (a line appended,
one of its own earlier lines edited; a 409 because the file changed meanwhile is read again and
retried) and, every `--dream-seconds`, `memory_dream` against the scripted fake model of the
tests (it makes one digest node per new card). It polls `memory_sync_status` and counts the
conflicts raised.

When the time is up the drivers stop and the servers keep syncing by themselves: the time to
converge is until both homes and the remote hold the same commit with nothing left to send.
Then every line a driver wrote (its last version, for an edited one), every card and every
digest node is looked for on both sides: the goal is 0 lost.

    PYTHONPATH=. python benchmarks/sync_soak.py [--minutes 10] [--sync-seconds 3] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.fake_openai import FakeOpenAIServer  # noqa: E402
from tests.fakes.messages import content_text  # noqa: E402
from tests.fakes.turns import ToolCall, ToolCallsTurn  # noqa: E402
from tests.surfaces.helpers import Surface, start_surface  # noqa: E402

NODE_WORDS = " ".join(f"word{n}" for n in range(60))


class DreamModel:
    """The fake model's answers for a dream: one unit per new card, then one CREATE of
    `digest/wiki/<card slug>.md` holding the card's token (stateless: both servers share it)."""

    def __call__(self, body: dict) -> object:
        messages = body["messages"]
        first = content_text(messages[0])
        if first.startswith("You consolidate"):
            cards = re.findall(r'<card path="([^"]+)">', content_text(messages[1]))
            units = [
                {
                    "name": _slug(p),
                    "bucket": "wiki",
                    "summary": f"What {_slug(p)} says.",
                    "paths": [p],
                }
                for p in cards
            ]
            return json.dumps({"units": units, "skipped": [], "interests": []})
        if first.startswith("You maintain the digest"):
            ask = content_text(messages[1])
            name = re.search(r"^The unit \(wiki\): (.+)$", ask, re.M)
            card = re.search(r"memory/\d{4}-\d{2}-\d{2}/[\w.-]+\.md", ask)
            if name is None or card is None:
                return json.dumps({"action": "CORROBORATE", "path": "", "note": ""})
            node = f"digest/wiki/{name.group(1)}.md"
            if not any(m["role"] == "tool" for m in messages):
                text = (
                    f"---\nname: {name.group(1)}\ndescription: The soak node of {name.group(1)}.\n"
                    f"---\nnode-{name.group(1)} {NODE_WORDS}\n\n## Sources\n"
                    f"- The card is [[{card.group(0)}]].\n"
                )
                return ToolCallsTurn(
                    [ToolCall("write", json.dumps({"path": node, "content": text}))]
                )
            return json.dumps({"action": "CREATE", "path": node, "note": ""})
        return "ok"


def _slug(path: str) -> str:
    return Path(path).stem


@dataclass
class Machine:
    """One home, its server, and what its driver wrote."""

    name: str
    root: Path
    surface: Surface | None = None
    memory_lines: dict[str, str] = field(default_factory=dict)  # line id -> its last text
    cards: dict[str, str] = field(default_factory=dict)  # card slug -> its token line
    counts: dict[str, int] = field(default_factory=dict)
    conflicts: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    def settings(self, base_url: str, sync_seconds: float) -> list[str]:
        return [
            f"working_dir={self.root}",
            f"sync.machine={self.name}",
            "sync.auto=true",
            f"sync.interval_minutes={sync_seconds / 60}",
            "search.embedding.backend=none",
            "memory.dream.auto=false",
            f"llm.base_url={base_url}",
            "llm.model_name=fake-model",
            "llm.api_key=sk-test",
            "llm.max_retries=0",
        ]

    def call(self, job: str, params: dict[str, object]) -> httpx.Response:
        assert self.surface is not None
        token = (self.root / "serve.token").read_text().strip()
        return httpx.post(
            f"{self.surface.url}/api/{job}",
            json=params,
            headers={"Authorization": f"Bearer {token}"},
            timeout=300,
        )

    def bump(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1


def _read_all(machine: Machine, path: str) -> tuple[str, str]:
    """The whole of `path` through memory_read (page after page) and its sha256."""
    params: dict[str, object] = {"path": path}
    parts = []
    while True:
        page = machine.call("memory_read", params).json()
        parts.append(page["content"])
        if page.get("next_start_line") is None:
            return "".join(parts), page["sha256"]
        params = {
            "path": path,
            "start_line": page["next_start_line"],
            "start_char": page.get("next_start_char") or 0,
        }


def _memory_change(machine: Machine, rng: random.Random, n: int) -> None:
    """Append a line to MEMORY.md, or edit one of this machine's earlier lines (retried on 409)."""
    for _attempt in range(20):
        text, sha = _read_all(machine, "MEMORY.md")
        mine = [key for key, line in machine.memory_lines.items() if f"{line}\n" in text]
        if mine and rng.random() < 0.3:
            key = rng.choice(mine)
            new = f"{machine.memory_lines[key]} edited"
            old = machine.memory_lines[key]
            done = machine.call(
                "memory_edit",
                {"path": "MEMORY.md", "old": f"{old}\n", "new": f"{new}\n", "expected_sha256": sha},
            )
            if done.status_code == 200:
                machine.memory_lines[key] = new
                machine.bump("MEMORY.md edits")
                return
        else:
            key = f"{machine.name}-{n}"
            line = f"- soak {key}"
            body = text if text.endswith("\n") else text + "\n"
            done = machine.call(
                "memory_write",
                {"path": "MEMORY.md", "content": body + line + "\n", "expected_sha256": sha},
            )
            if done.status_code == 200:
                machine.memory_lines[key] = line
                machine.bump("MEMORY.md lines")
                return
        if done.status_code != 409:
            machine.errors.append(f"MEMORY.md: {done.status_code} {done.text[:200]}")
            return
        machine.bump("retried after 409")
    machine.errors.append("MEMORY.md: changed meanwhile 20 times in a row")


def drive(machine: Machine, until: float, dream_seconds: float, seed: int) -> None:
    """Write cards and MEMORY.md changes until `until`, dreaming every `dream_seconds`."""
    rng = random.Random(seed)
    n, next_dream = 0, time.monotonic() + dream_seconds
    while time.monotonic() < until:
        n += 1
        try:
            if rng.random() < 0.5:
                slug = f"soak-{machine.name}-{n}"
                token = f"card-{machine.name}-{n}"
                done = machine.call(
                    "memory_write_card",
                    {"name": slug, "description": f"soak card {n}", "content": f"{token}\n"},
                )
                if done.status_code == 200:
                    machine.cards[slug] = token
                    machine.bump("cards")
                else:
                    machine.errors.append(f"card: {done.status_code} {done.text[:200]}")
            else:
                _memory_change(machine, rng, n)
            if time.monotonic() >= next_dream:
                done = machine.call("memory_dream", {})
                status = done.json().get("status", done.status_code)
                machine.bump(f"dreams {status}")
                next_dream = time.monotonic() + dream_seconds
            status = machine.call("memory_sync_status", {})
            if status.status_code == 200:
                machine.conflicts |= {c["path"] for c in status.json()["conflicts"]}
        except httpx.HTTPError as exc:
            machine.errors.append(f"{type(exc).__name__}: {exc}")
        time.sleep(rng.uniform(0.1, 0.6))


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()


def converged(remote: Path, machines: list[Machine]) -> bool:
    """Both homes hold the remote's commit and have nothing uncommitted that travels."""
    head = _git("--git-dir", str(remote), "rev-parse", "main")
    for machine in machines:
        git_dir = machine.root / ".sync" / "git"
        env = ["--git-dir", str(git_dir), "--work-tree", str(machine.root)]
        if _git(*env, "rev-parse", "HEAD") != head or _git(*env, "status", "--porcelain"):
            return False
    return bool(head)


def check(machines: list[Machine]) -> list[str]:
    """What the drivers wrote and a side lacks: one line each (empty: nothing lost)."""
    lost = []
    for side in machines:
        text = (side.root / "MEMORY.md").read_text(encoding="utf-8")
        for writer in machines:
            for line in writer.memory_lines.values():
                if f"{line}\n" not in text:
                    lost.append(f"{side.name}: MEMORY.md lacks {line!r} ({writer.name})")
            for slug, token in writer.cards.items():
                cards = list((side.root / "memory").glob(f"*/{slug}.md"))
                if not cards or token not in cards[0].read_text(encoding="utf-8"):
                    lost.append(f"{side.name}: card {slug} missing or without its line")
    digests = [
        {
            p.relative_to(m.root).as_posix(): p.read_bytes()
            for p in (m.root / "digest").rglob("*.md")
        }
        for m in machines
    ]
    for path in sorted(set(digests[0]) ^ set(digests[1])):
        lost.append(f"digest node {path} is on one side only")
    for path in sorted(set(digests[0]) & set(digests[1])):
        if digests[0][path] != digests[1][path]:
            lost.append(f"digest node {path} differs between the sides")
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--sync-seconds", type=float, default=3.0)
    parser.add_argument("--dream-seconds", type=float, default=30.0)
    parser.add_argument("--converge-minutes", type=float, default=5.0)
    parser.add_argument("--keep", action="store_true", help="keep the folders (printed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="remecli-sync-soak-"))
    server = FakeOpenAIServer(strict=False).start()
    server.set_fallback(DreamModel())
    machines = [Machine("laptop", folder / "laptop"), Machine("desktop", folder / "desktop")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    env["PYTHONPATH"] = str(ROOT)
    try:
        remote = folder / "remote.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        for machine in machines:
            settings = machine.settings(server.base_url, args.sync_seconds)
            subprocess.run(
                [sys.executable, "-m", "remecli", "sync", "init", str(remote), *settings],
                check=True, capture_output=True, env=env, cwd=folder,
            )  # fmt: skip
            machine.surface = start_surface(["serve", "--port", "0", *settings], env=env)
        started = time.monotonic()
        until = started + args.minutes * 60
        drivers = [
            threading.Thread(target=drive, args=(m, until, args.dream_seconds, i))
            for i, m in enumerate(machines)
        ]
        for thread in drivers:
            thread.start()
        for thread in drivers:
            thread.join()
        stopped = time.monotonic()
        deadline = stopped + args.converge_minutes * 60
        while not converged(remote, machines) and time.monotonic() < deadline:
            time.sleep(0.5)
        converge = time.monotonic() - stopped
        ok = converged(remote, machines)
        for machine in machines:  # what the servers' syncs left to resolve
            status = machine.call("memory_sync_status", {}).json()
            machine.conflicts |= {c["path"] for c in status["conflicts"]}
    finally:
        for machine in machines:
            if machine.surface is not None:
                machine.surface.stop()
        server.stop()
    lost = check(machines)
    print(
        f"{args.minutes:g} min, a sync every {args.sync_seconds:g} s on each side, a dream every {args.dream_seconds:g} s"
    )
    for machine in machines:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(machine.counts.items()))
        print(f"{machine.name}: {counts}; errors {len(machine.errors)}")
        for error in machine.errors[:5]:
            print(f"  error: {error}")
    written = sum(len(m.memory_lines) + len(m.cards) for m in machines)
    nodes = len(list((machines[0].root / "digest").rglob("*.md")))
    print(f"written: {written} MEMORY.md lines and cards, {nodes} digest nodes")
    print(f"lost: {len(lost)}")
    for line in lost[:20]:
        print(f"  {line}")
    conflicts = sorted(set().union(*(m.conflicts for m in machines)))
    print(f"conflicts raised: {len(conflicts)} {conflicts[:10]}")
    markers = [m.name for m in machines if "<<<<<<<" in (m.root / "MEMORY.md").read_text()]
    print(f"conflict markers left in MEMORY.md: {markers or 'none'}")
    print(
        f"time to converge after the writers stopped: {converge:.1f} s ({'converged' if ok else 'NOT converged'})"
    )
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.keep:
        print(f"kept: {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    print(
        "command: PYTHONPATH=. " + shlex.join(["python", "benchmarks/sync_soak.py", *sys.argv[1:]])
    )


if __name__ == "__main__":
    main()
