"""Auto Resource: files in `<working_dir>/resource/` become source-linked topic cards.

One card per resource, `memory/YYYY-MM-DD/<slug>.md`, with frontmatter `name`, `description`,
`tags`, `date`, `source_resource: "[[resource/<file>]]"` and `resource_sha256` (the file's content
hash). The model writes name, description, tags and key points from the file's bounded text
(`resources.extract`, `resources.summary`); the code writes the card through the memory writer
(versioned, redacted). Without a configured model (the runtime's one `ModelGate`) nothing is
sent: the file waits in `resource/` ("waiting") for a start or an ingest with a model.
A changed file updates its card in place (same path, never a second card); an unchanged one is
not sent to the model again. The original file is only read, never moved or changed. A card
whose resource is gone is removed only when asked (`prune(remove=True)`), through the writer, so
it stays in the history.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict

from remecli.config.privacy import private_dirs
from remecli.knowledge.cards.card import join_frontmatter, read_meta, slugify
from remecli.knowledge.model_gate import ModelGate
from remecli.knowledge.resources.extract import (
    Extracted,
    ResourceRefused,
    extract,
    unsupported,
)
from remecli.knowledge.resources.paths import (
    not_read,
    not_regular,
    readable_resource,
    resource_listing,
    special_kind,
)
from remecli.knowledge.resources.summary import CardSummary, summarize_resource
from remecli.notes.links.parse import link_in_value
from remecli.notes.locks import FileLock
from remecli.notes.writer import MemoryWriter

if TYPE_CHECKING:
    from remecli.config.settings import Settings
    from remecli.llm.chat_model import ChatModel
    from remecli.notes.layout import WorkingDir

log = logging.getLogger(__name__)

RESOURCE_FOLDER = "resource"
SOURCE_FIELD = "source_resource"
HASH_FIELD = "resource_sha256"
WRITER_SOURCE = "resource"
Status = Literal["created", "updated", "unchanged", "refused", "failed", "skipped", "waiting"]
# a resource not sent for want of a model (the front-end shows the gate's explanation once)
WAITING = "stays in resource/ and becomes a card once a model is configured; nothing was sent"


class IngestOutcomeJSON(TypedDict):
    """`IngestOutcome.to_dict()`: what jobs and the CLI print."""

    resource: str
    status: Status
    card: str | None
    message: str


@dataclass(frozen=True)
class IngestOutcome:
    """What happened to one resource."""

    resource: str  # `resource/<file>`
    status: Status
    card: str | None = None  # `memory/YYYY-MM-DD/<slug>.md`
    message: str = ""

    def to_dict(self) -> IngestOutcomeJSON:
        """JSON-ready form (jobs, CLI)."""
        return {
            "resource": self.resource,
            "status": self.status,
            "card": self.card,
            "message": self.message,
        }


@dataclass(frozen=True)
class OrphanCard:
    """A card whose resource file no longer exists."""

    card: str
    resource: str


def resource_link(rel: str) -> str:
    """`[[resource/<file>]]`, the card's `source_resource`."""
    return f"[[{rel}]]"


def linked_resource(meta: Mapping[str, object]) -> str | None:
    """The `resource/<file>` a card's frontmatter points at (None: not a resource card)."""
    link = link_in_value(meta.get(SOURCE_FIELD))
    return link.target if link is not None and link.target.startswith("resource/") else None


def render_card(
    summary: CardSummary, rel: str, extracted: Extracted, day: dt.date, language: str
) -> str:
    """The card's text: frontmatter, then title, description, key points and the source link."""
    tags = [t.strip().lstrip("#").lower() for t in summary.tags if t.strip().lstrip("#")]
    name = " ".join(summary.name.split())
    description = " ".join(summary.description.split())
    meta: dict[str, object] = {
        "name": name,
        "description": description,
        "date": f"{day:%Y-%m-%d}",
        "tags": list(dict.fromkeys(tags)),
        SOURCE_FIELD: resource_link(rel),
        HASH_FIELD: extracted.digest,
    }
    points_title, source_title = ("要点", "来源") if language == "zh" else ("Key points", "Source")
    points = [f"- {' '.join(p.split())}" for p in summary.key_points if p.strip()]
    body = [f"# {name}", "", description, ""]
    if points:
        body += [f"## {points_title}", *points, ""]
    body += [f"## {source_title}", f"- {resource_link(rel)} ({extracted.kind})", ""]
    return join_frontmatter(meta, "\n".join(body))


class ResourceCards:
    """Turns the working dir's resources into cards; `model_getter()` gives the chat model,
    asked only when `gate` (the runtime's one; default: from the settings) says there is one."""

    def __init__(
        self,
        layout: WorkingDir,
        settings: Settings,
        model_getter: Callable[[], ChatModel],
        writer: MemoryWriter,
        gate: ModelGate | None = None,
    ) -> None:
        from remecli.llm.endpoint import missing_key_message

        self.layout = layout
        self.settings = settings
        self.writer = writer  # the composition root's one writer (versions, redaction)
        self._model_getter = model_getter
        self.gate = gate or ModelGate(lambda: missing_key_message(settings.llm))
        self._lock = asyncio.Lock()  # one ingest at a time (no two cards for one resource)
        self.on_gone: Callable[[list[OrphanCard]], object] | None = None  # asks before pruning

    @property
    def folder(self) -> Path:
        """`<working_dir>/resource/`."""
        return Path(self.layout.resource_dir)

    # ---------------------------------------------------------------- finding things
    def relative(self, path: Path) -> str:
        """`resource/<file>` of a path inside the resource folder (ValueError otherwise)."""
        real = path.resolve()
        inside = real.relative_to(self.folder.resolve()).as_posix()
        return f"{RESOURCE_FOLDER}/{inside}"

    def resources(self) -> list[str]:
        """Every supported file under `resource/` (sorted; dotfiles, temp files and links that
        lead out of `resource/` skipped: the watcher and `memory_ingest` share this rule)."""
        return [rel for rel, why in self._listing() if why == "ok"]

    def skipped(self, under: str = RESOURCE_FOLDER) -> list[tuple[str, str]]:
        """Visible files under `under` (a `resource/…` folder) that remecli will not read, each
        with the one line that says why: a type it cannot read, or a link it does not follow."""
        prefix = under.rstrip("/") + "/"
        return [
            (rel, unsupported(rel) if why == "type" else not_read(rel) if why == "unread" else why)
            for rel, why in self._listing()
            if why != "ok" and rel.startswith(prefix)
        ]

    def _listing(self) -> list[tuple[str, str]]:
        """Every visible file or link under `resource/` (`resources.paths.resource_listing`)."""
        return resource_listing(self.folder, Path(self.layout.root), RESOURCE_FOLDER)

    def readable(self, path: Path) -> bool:
        """True when `path` may be read as a resource (`resources.paths.readable_resource`)."""
        return readable_resource(path, Path(self.layout.root))

    def cards_by_resource(self) -> dict[str, Path]:
        """Resource card of each resource (`resource/<file>` → card path), from frontmatter."""
        memory_dir = Path(self.layout.memory_dir)
        found: dict[str, Path] = {}
        if not memory_dir.is_dir():
            return found
        for card in sorted(memory_dir.glob("*/*.md")):
            rel = linked_resource(read_meta(card))
            if rel is not None and rel not in found:
                found[rel] = card
        return found

    def orphans(self) -> list[OrphanCard]:
        """Cards whose resource file is gone."""
        root = Path(self.layout.root)
        return [
            OrphanCard(card.relative_to(root).as_posix(), rel)
            for rel, card in self.cards_by_resource().items()
            if not (root / rel).is_file()
        ]

    # ---------------------------------------------------------------- ingesting
    async def ingest(self, rel: str) -> IngestOutcome:
        """Create or update the card of resource `rel` (`resource/<file>`); never raises for
        a file it cannot use (the outcome says what to do)."""
        async with self._lock, self._other_processes():
            try:
                return await self._ingest(rel)
            except ResourceRefused as exc:
                log.info("resource %s refused: %s", rel, exc)
                return IngestOutcome(rel, "refused", message=str(exc))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the model or the disk failed: try again next time
                log.exception("resource %s could not become a card", rel)
                return IngestOutcome(rel, "failed", message=f"{rel}: {_one_line(exc)}")

    @contextlib.asynccontextmanager
    async def _other_processes(self) -> AsyncIterator[None]:
        """Hold `index/locks/resources.lock` (polled so a cancel never hangs): the app's
        watcher and `remecli ingest` of the same file never both create a card."""
        folder = self.layout.locks_dir
        private_dirs(folder)
        lock = FileLock(folder / "resources.lock")
        while not lock.acquire(blocking=False):
            await asyncio.sleep(0.05)
        try:
            yield
        finally:
            lock.release()

    async def _ingest(self, rel: str) -> IngestOutcome:
        from remecli.knowledge.cards.day_page import refresh_day_page
        from remecli.knowledge.write import write_memory_file

        root = Path(self.layout.root)
        source = root / rel
        kind = special_kind(source)
        if kind is not None:
            raise ResourceRefused(not_regular(rel, kind))
        if not source.is_file():
            raise ResourceRefused(f"{rel} does not exist; put the file into {self.folder}")
        if not self.readable(source):
            raise ResourceRefused(
                f"{rel} leads (through a link) out of the working dir or to its private files; "
                "it is never read: put a copy of the file into resource/ instead"
            )
        extracted = await asyncio.to_thread(extract, source, rel)
        existing = (await asyncio.to_thread(self.cards_by_resource)).get(rel)
        old_meta = read_meta(existing) if existing is not None else {}
        if existing is not None and old_meta.get(HASH_FIELD) == extracted.digest:
            return IngestOutcome(rel, "unchanged", _rel(existing, root), "card is up to date")
        if self.gate.problem() is not None:  # no model: nothing is sent, the file waits
            return IngestOutcome(rel, "waiting", message=WAITING)  # (a front-end says why)
        language, retries = self.settings.language, self.settings.llm.max_retries
        summary = await summarize_resource(self._model_getter, language, retries, rel, extracted)
        day = dt.date.today()
        if existing is not None:  # same card, same day folder: updated in place
            card_day = _card_day(existing, day)
            target = existing
        else:
            card_day = day
            target = await asyncio.to_thread(self._free_card_path, summary.name, day)
        text = render_card(summary, rel, extracted, card_day, self.settings.language)

        def write() -> None:
            write_memory_file(self.writer, target, text, WRITER_SOURCE)
            refresh_day_page(self.layout, card_day, self.writer, reason=WRITER_SOURCE)

        await asyncio.to_thread(write)
        status: Status = "updated" if existing is not None else "created"
        note = " (the middle of a long file was left out)" if extracted.clipped else ""
        return IngestOutcome(rel, status, _rel(target, root), f"card {status}{note}")

    def _free_card_path(self, name: str, day: dt.date) -> Path:
        from remecli.knowledge.cards.card import day_folder

        folder = day_folder(self.layout, day)
        stem = slugify(name) or "resource"
        candidate = folder / f"{stem}.md"
        number = 2
        while candidate.exists():
            candidate = folder / f"{stem}-{number}.md"
            number += 1
        return candidate

    async def sync(self, rels: set[str] | None = None) -> list[IngestOutcome]:
        """Ingest `rels` (files or folders under `resource/`; default: every resource) that
        exist, and say which of `rels` remecli cannot read ("skipped"); report cards of deleted
        ones to `on_gone` (they are never removed here)."""
        root = Path(self.layout.root)
        if rels is None:
            wanted = self.resources()
        else:  # a new folder is listed: files written before the watch reached it count too
            listed = self.resources()
            wanted = sorted({r for r in listed if any(_within(r, changed) for changed in rels)})
        outcomes = [await self.ingest(rel) for rel in wanted if (root / rel).is_file()]
        if rels is not None:  # a file dropped that remecli cannot read: said, not silently left
            outcomes += [
                IngestOutcome(rel, "skipped", message=message)
                for rel, message in await asyncio.to_thread(self.skipped)
                if any(_within(rel, changed) for changed in rels)
            ]
        gone = await asyncio.to_thread(self.orphans)
        if rels is not None:
            gone = [o for o in gone if any(_within(o.resource, rel) for rel in rels)]
        if gone and self.on_gone is not None:
            result = self.on_gone(gone)
            if asyncio.iscoroutine(result):
                await result
        return outcomes

    # ---------------------------------------------------------------- pruning
    def prune(self, *, remove: bool, cards: Collection[str] | None = None) -> list[OrphanCard]:
        """Cards whose resource is gone (only those in `cards`, when given); with `remove`,
        delete them through the memory writer (kept in history: `remecli memory restore` brings
        one back) and update the day pages. Blocking: call it from a worker thread."""
        from remecli.knowledge.cards.day_page import refresh_day_page

        orphans = [o for o in self.orphans() if cards is None or o.card in cards]
        if not remove:
            return orphans
        root = Path(self.layout.root)
        days: set[dt.date] = set()
        for orphan in orphans:
            self.writer.remove(root / orphan.card, source=f"{WRITER_SOURCE} prune")
            days.add(_card_day(root / orphan.card, dt.date.today()))
        for day in sorted(days):
            refresh_day_page(self.layout, day, self.writer, reason=f"{WRITER_SOURCE} prune")
        return orphans


def _card_day(card: Path, default: dt.date) -> dt.date:
    try:
        return dt.date.fromisoformat(card.parent.name)
    except ValueError:
        return default


def _within(resource: str, rel: str) -> bool:
    return resource == rel or resource.startswith(rel.rstrip("/") + "/")


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
