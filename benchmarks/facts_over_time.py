"""Facts that change over time: does search answer with what is true now, and with what was
true then?

A script writes its own memory (seeded): S people, each with one fact (the city they live in,
the database of their project, their editor, their employer, their team) that changes 1-3
times, weeks apart. Each value is told in a topic card on its day (`memory/DAY/<slug>.md`,
with an unrelated line); the digest node for the fact is created and corrected by
`knowledge/dream/digest.with_provenance` — the code a dream runs after its agent's edit, as a
scripted model would drive it (CREATE, then CORRECT per change, with the agent's rewrite of
the node as each version's prompt asks). Then, through the `memory_search` operation:

- current: "what is X's fact" — the share whose top hit answers with the current value (a hit
  answers with the values of its claims valid on the day when it has timed claims, else with
  the values its text names; an answer naming two values is wrong); named: the lenient
  share whose top hit's text names the current value at all (old values beside it or not);
- as of: the same question `as_of` a day inside each earlier period — the share whose top hit
  answers with the value valid then (code without `as_of` answers as of today);
- findable: the share of superseded values named in the top 5 of "what was X's fact before".

Run it on older code with `PYTHONPATH=<checkout>` to get that code's figures.

The realmodel tier (`--real`) writes the same cards but lets Auto Dream build and correct the
digest with a real model instead of the scripted actions: one dream per day that has a card, in
order, as the app would run them. It takes the model from the realmodel tier's variables
(tests/realmodel/real.py): `REMECLI_REAL_MODEL_URL` (an OpenAI-compatible base URL), optional
`REMECLI_REAL_MODEL_NAME` and `REMECLI_REAL_MODEL_KEY`. A small model on a CPU takes minutes
per dream, so keep `--people` small (the default there is 4).

Reproduce:  python benchmarks/facts_over_time.py [--people 60] [--seed 7] [--embedding local]
            REMECLI_REAL_MODEL_URL=http://127.0.0.1:8080/v1 python benchmarks/facts_over_time.py --real
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import inspect
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parents[1]))  # PYTHONPATH=<checkout> wins

from remecli.config.settings import Settings  # noqa: E402
from remecli.knowledge.dream.digest import with_provenance  # noqa: E402
from remecli.ops import JobRunner  # noqa: E402
from tests.realmodel.real import URL_VARIABLE  # noqa: E402

NAMES = [
    "Alice Novak", "Bruno Silva", "Chen Wei", "Dana Kowalski", "Emeka Obi", "Farah Haddad",
    "Goran Petrov", "Hana Sato", "Ivan Horvat", "Jonas Berg", "Keiko Mori", "Liam Walsh",
    "Maya Levi", "Nils Dahl", "Olga Ivanova", "Pedro Costa", "Quinn Reyes", "Rosa Marino",
    "Sven Lund", "Tara Singh", "Umar Aziz", "Vera Klein", "Wen Li", "Ximena Ruiz",
    "Yusuf Kaya", "Zoe Martin", "Arjun Rao", "Bea Santos", "Carl Jensen", "Dina Cohen",
    "Elif Demir", "Femi Adeyemi", "Greta Vogel", "Hugo Blanc", "Ines Duarte", "Jae Park",
    "Kofi Mensah", "Lena Fischer", "Mateo Rossi", "Nora Quist", "Omar Farouk", "Petra Novak",
    "Raj Mehta", "Sara Lind", "Timo Virtanen", "Uma Iyer", "Viktor Szabo", "Wanda Nowak",
    "Yara Nasser", "Zain Malik", "Ada Byrne", "Ben Okafor", "Cleo Laurent", "Dev Patel",
    "Eva Horak", "Finn Murphy", "Gina Russo", "Hiro Tanaka", "Ida Holm", "Jack Dunne",
]  # fmt: skip
FACTS = {  # fact → (values, claim template, question, question about the past)
    "city": (
        ["Munich", "Berlin", "Lisbon", "Toronto", "Nairobi", "Osaka", "Denver", "Krakow"],
        "{name} lives in {value}",
        "which city does {name} live in",
        "where did {name} live before",
    ),
    "database": (
        ["PostgreSQL", "MySQL", "SQLite", "MongoDB", "Cassandra", "Redis", "DuckDB"],
        "{name}'s project stores its data in {value}",
        "what database does {name}'s project use",
        "which database did {name}'s project use before",
    ),
    "editor": (
        ["Vim", "Emacs", "Helix", "Zed", "VSCode", "Sublime", "Kakoune"],
        "{name} writes code in {value}",
        "which editor does {name} use",
        "which editor did {name} use before",
    ),
    "employer": (
        ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark"],
        "{name} works at {value}",
        "where does {name} work",
        "where did {name} work before",
    ),
}
FILLER = ["The weather was grey.", "Lunch was late.", "The build was green.", "Tea, not coffee."]


def slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def node_text(name: str, description: str, body: str, cards: list[str]) -> str:
    sources = "".join(f"- Told in [[{card}]].\n" for card in cards)
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n\n## Sources\n{sources}"


def write_memory(
    root: Path, people: int, seed: int, *, digest: bool = True
) -> list[dict[str, Any]]:
    """Cards and (`digest`) digest nodes for `people` changing facts; each fact's timeline."""
    rng = random.Random(seed)
    timelines = []
    for name in NAMES[:people]:
        fact = rng.choice(sorted(FACTS))
        values, template, _, _ = FACTS[fact]
        chosen = rng.sample(values, rng.randint(2, 4))
        day = dt.date(2025, 1, 1) + dt.timedelta(days=rng.randint(0, 60))
        periods: list[dict[str, Any]] = []
        previous = None
        for number, value in enumerate(chosen):
            claim = template.format(name=name, value=value)
            card = f"memory/{day:%Y-%m-%d}/{slug(name)}-{fact}-{number}.md"
            path = root / card
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                f"---\nname: {name} {fact}\ndescription: {claim}.\n---\n# {name}\n\n"
                f"## Current\n- {claim}.\n- {rng.choice(FILLER)}\n",
                encoding="utf-8",
            )
            if digest:  # else the realmodel tier's dreams write the digest
                rel = f"digest/personal/{slug(name)}-{fact}.md"
                step = {"claim": claim, "card": card, "day": day}
                previous = scripted_node(root, rel, f"{name} {fact}", step, periods, previous)
            periods.append({"value": value, "claim": claim, "card": card, "since": day})
            day += dt.timedelta(weeks=rng.randint(2, 10))
        for number, period in enumerate(periods):
            nxt = periods[number + 1]["since"] if number + 1 < len(periods) else None
            period["until"] = nxt
        timelines.append({"name": name, "fact": fact, "values": values, "periods": periods})
    return timelines


def scripted_node(
    root: Path,
    rel: str,
    title: str,
    step: dict[str, Any],
    periods: list[dict[str, Any]],
    previous: str | None,
) -> str:
    """The node after `step`'s card as a scripted dream leaves it (CREATE, then CORRECT with
    the agent's rewrite the prompt asks for); written, and its text returned."""
    claim, card, day = step["claim"], step["card"], step["day"]
    if previous is None:
        text = node_text(title, claim, f"{claim}.", [card])
        text = with_provenance(rel, text, None, action="CREATE", cards=[card], today=day)
    else:
        takes_claim = "claim" in inspect.signature(with_provenance).parameters
        old_claim = periods[-1]["claim"]
        body = f"{claim}." if takes_claim else f"{claim}. Before {day} ({old_claim})."
        staged = node_text(title, claim, body, [p["card"] for p in periods] + [card])
        extra = {"claim": claim} if takes_claim else {}
        text = with_provenance(
            rel, staged, previous, action="CORRECT", cards=[card], today=day,
            note=old_claim, **extra,
        )  # fmt: skip
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    return text


async def real_dreams(root: Path, timelines: list[dict[str, Any]]) -> None:
    """The realmodel tier: Auto Dream with the real model on each day that has a card, in
    order (each run consolidates that day's cards); what the runs did is printed."""
    from remecli.knowledge.dream.runner import dream
    from remecli.notes.layout import WorkingDir
    from tests.realmodel.real import real_settings

    settings = real_settings(root.parent)  # its working dir: root
    layout = WorkingDir(root).ensure()
    days = sorted({period["since"] for item in timelines for period in item["periods"]})
    print(f"  model {settings.llm.model_name} at {settings.llm.base_url}: {len(days)} dreams")
    actions: Counter[str] = Counter()
    for number, day in enumerate(days, 1):
        started = time.perf_counter()
        result = await dream(settings, layout, date=day)
        actions.update(o.action if o.ok else "failed" for o in result.outcomes)
        took = time.perf_counter() - started
        print(f"  dream {number}/{len(days)} of {day}: {result.status} in {took:.0f} s", flush=True)
    done = ", ".join(f"{action} {count}" for action, count in sorted(actions.items()))
    print(f"  dream actions: {done or 'none'}")


def answer(hit: dict[str, Any], root: Path, values: list[str]) -> set[str]:
    """The values a hit answers with: its claims valid on the day, else the values it names."""
    claims = hit.get("claims")
    if claims and not hit.get("superseded"):
        texts = " ".join(c["text"] for c in claims if c.get("valid"))
    elif claims:
        return set()  # marked: no longer (or not yet) true
    else:
        lines = (root / hit["path"]).read_text(encoding="utf-8").splitlines()
        texts = " ".join(lines[hit["start_line"] - 1 : hit["end_line"]])
        texts = texts.replace("~~", "")
    return {value for value in values if value in texts}


async def measure(root: Path, timelines: list[dict[str, Any]], embedding: str) -> None:
    settings = Settings(working_dir=str(root)).with_changes(
        {"search.embedding.backend": embedding, "search.watch": False}
    )
    runner = JobRunner.from_settings(settings)
    await runner.start(wait_for_index=True)
    has_as_of = _has_as_of()
    counts = {"current": [0, 0], "named": [0, 0], "as_of": [0, 0], "findable": [0, 0]}
    try:
        for item in timelines:
            name, values, periods = item["name"], item["values"], item["periods"]
            _, _, question, before = FACTS[item["fact"]]
            query = {"query": question.format(name=name), "max_results": 5}
            top = (await runner.run("memory_search", query))["results"][:1]
            got = answer(top[0], root, values) if top else set()
            counts["current"][0] += got == {periods[-1]["value"]}
            counts["current"][1] += 1
            counts["named"][0] += bool(top) and periods[-1]["value"] in _text(root, top[0])
            counts["named"][1] += 1
            for period in periods[:-1]:
                day = period["since"] + (period["until"] - period["since"]) / 2
                asked = {**query, "as_of": day.isoformat()} if has_as_of else query
                top = (await runner.run("memory_search", asked))["results"][:1]
                got = answer(top[0], root, values) if top else set()
                counts["as_of"][0] += got == {period["value"]}
                counts["as_of"][1] += 1
                past = {"query": before.format(name=name), "max_results": 5}
                hits = (await runner.run("memory_search", past))["results"]
                named = any(period["value"] in _text(root, hit) for hit in hits)
                counts["findable"][0] += named
                counts["findable"][1] += 1
    finally:
        await runner.close()
    for key, (good, total) in counts.items():
        print(f"  {key:<9} {good / max(total, 1):.3f}  ({good}/{total})")
    if not has_as_of:
        print("  (this code has no as_of: 'as of' questions were answered as of today)")


async def dream_then_measure(
    root: Path, timelines: list[dict[str, Any]], embedding: str, real: bool
) -> None:
    """One event loop for the realmodel tier's dreams (their HTTP client) and the search."""
    if real:
        await real_dreams(root, timelines)
    await measure(root, timelines, embedding)


def _has_as_of() -> bool:
    from remecli.ops import JOBS

    return "as_of" in JOBS.get("memory_search").params.model_fields


def _text(root: Path, hit: dict[str, Any]) -> str:
    lines = (root / hit["path"]).read_text(encoding="utf-8").splitlines()
    return " ".join(lines[hit["start_line"] - 1 : hit["end_line"]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--people", type=int, default=None, help="people, one changing fact each (60; --real: 4)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedding", default="local", help="local (the default) or none")
    parser.add_argument(
        "--real",
        action="store_true",
        help=f"the realmodel tier: dreams with the model at ${URL_VARIABLE} build the digest",
    )
    args = parser.parse_args()
    if args.real and not os.environ.get(URL_VARIABLE):
        print(f"--real needs a model: set {URL_VARIABLE} to an OpenAI-compatible base URL")
        return 2
    people = args.people if args.people is not None else (4 if args.real else 60)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / ".reme"
        timelines = write_memory(root, min(people, len(NAMES)), args.seed, digest=not args.real)
        changes = sum(len(t["periods"]) - 1 for t in timelines)
        print(
            f"facts over time: {len(timelines)} facts, {changes} changes, "
            f"embedding={args.embedding}, seed {args.seed}, "
            + ("digest by real dreams" if args.real else "digest by scripted dream actions")
        )
        asyncio.run(dream_then_measure(root, timelines, args.embedding, args.real))
    print(f"  ({time.perf_counter() - started:.0f} s)  reproduce: python {' '.join(sys.argv)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
