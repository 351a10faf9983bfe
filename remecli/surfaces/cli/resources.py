"""`remecli ingest [PATH …] | --prune [--yes]`: resources to cards from the shell.

A PATH inside `<working_dir>/resource/` is used where it is; a file elsewhere is copied into
`resource/` first (the original stays where it was; a different file of the same name already
there is refused, never overwritten). No PATH: every resource. `--prune` lists the cards whose
resource is gone; with `--yes` it removes them through the memory writer (kept in history).
"""

from __future__ import annotations

import argparse
import asyncio
import filecmp
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from remecli.knowledge.resources import IngestOutcome, ResourceCards
from remecli.knowledge.resources_extract import is_resource_name

_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")


class IngestUsage(ValueError):
    """A PATH that cannot be ingested; the message says what to do."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="remecli ingest",
        description="Turn files (Markdown, text, JSON/JSONL, CSV, YAML, HTML) into cards.",
        epilog="Settings: config=NAME[,NAME…] and key=value, as for remecli itself.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files (default: all resources)")
    parser.add_argument("--prune", action="store_true", help="cards whose resource is gone")
    parser.add_argument("--yes", action="store_true", help="with --prune: remove those cards")
    parser.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    return parser


def place(cards: ResourceCards, raw: str) -> str:
    """`resource/<file>` for PATH, copying a file from outside into the resource folder."""
    source = Path(raw).expanduser()
    if not source.is_file():
        raise IngestUsage(f"{raw}: no such file")
    folder = cards.folder
    try:
        return cards.relative(source)
    except ValueError:
        pass  # outside resource/: copied in
    if not is_resource_name(source.name):
        raise IngestUsage(
            f"{raw}: unsupported type; use .md, .txt, .json, .jsonl, .csv, .yaml or .html"
        )
    target = folder / source.name
    if target.exists() and not filecmp.cmp(source, target, shallow=False):
        raise IngestUsage(
            f"{target} already exists with other content; rename {source.name} and try again"
        )
    folder.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copy2(source, target)
    return cards.relative(target)


def _line(outcome: IngestOutcome) -> str:
    card = f" → {outcome.card}" if outcome.card else ""
    return f"{outcome.status:9} {outcome.resource}{card}: {outcome.message}"


async def _ingest(cards: ResourceCards, rels: list[str]) -> list[IngestOutcome]:
    return [await cards.ingest(rel) for rel in rels]


def _cards(settings: Any) -> ResourceCards:
    from remecli.notes.layout import WorkingDir
    from remecli.notes.writer import configure_writer

    layout = WorkingDir.from_settings(settings).ensure()
    configure_writer(layout.root, settings.memory)
    model: list[Any] = []

    def model_getter() -> Any:
        if not model:
            from remecli.llm.model import build_chat_model

            model.append(
                build_chat_model(settings.llm, context_size=settings.max_input_length, stream=False)
            )
        return model[0]

    return ResourceCards(layout, settings, model_getter)


def _prune(cards: ResourceCards, remove: bool) -> int:
    orphans = cards.prune(remove=remove)
    if not orphans:
        print("No card has lost its resource.")
        return 0
    for orphan in orphans:
        print(f"{'removed' if remove else 'gone':9} {orphan.card} (was {orphan.resource})")
    if not remove:
        print(f"{len(orphans)} card(s) whose resource is gone; run `remecli ingest --prune --yes`")
        print("to remove them (they stay in `remecli memory history`).")
    return 0


def run(argv: list[str]) -> int:
    """Run `remecli ingest …`; exit 0 when every file became (or already was) a card."""
    import json

    options = [a for a in argv if not (_SETTING.match(a) and not a.startswith("-"))]
    setting_args = [a for a in argv if a not in options]
    args = _parser().parse_args(options)
    from remecli.config.logs import setup_logging
    from remecli.surfaces.cli.start import settings_or_exit_code

    if args.yes and not args.prune:
        print("remecli ingest: --yes goes with --prune", file=sys.stderr)
        return 2
    settings = settings_or_exit_code(setting_args, "remecli ingest")
    if isinstance(settings, int):
        return settings
    setup_logging(settings)
    cards = _cards(settings)
    if args.prune:
        return _prune(cards, args.yes)
    try:
        rels = [place(cards, raw) for raw in args.paths] if args.paths else cards.resources()
    except (IngestUsage, OSError) as exc:
        print(f"remecli ingest: {exc}", file=sys.stderr)
        return 2
    if not rels:
        print(f"Nothing to ingest: put files into {cards.folder} or name them.")
        return 0
    outcomes = asyncio.run(_ingest(cards, rels))
    if args.json:
        print(json.dumps([o.to_dict() for o in outcomes], ensure_ascii=False, indent=2))
    else:
        for outcome in outcomes:
            print(
                _line(outcome),
                file=sys.stderr if outcome.status in ("failed", "refused") else sys.stdout,
            )
    return 1 if any(o.status in ("refused", "failed") for o in outcomes) else 0
