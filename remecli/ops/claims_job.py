"""memory_changed_facts: the facts that changed — every superseded timed claim (`notes/claims`)
in MEMORY.md and the digest, with when it held, what replaced it and where it is written,
the most recent change first."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Any

from pydantic import Field

from remecli.notes.claims import parse_claims
from remecli.notes.files import read_memory_text
from remecli.notes.links.parse import link_targets
from remecli.ops.claim_marks import MAX_READ
from remecli.ops.context import JobContext
from remecli.ops.registry import JOBS, JobParams, JobResult


class ChangedFactsParams(JobParams["ChangedFactsResult"]):
    since: dt.date | None = Field(None, description="Only changes on or after YYYY-MM-DD")
    limit: int = Field(200, ge=1, le=2_000, description="Most changes returned (newest first)")


class ChangedFact(JobResult):
    path: str = Field(description="The note holding the claim (MEMORY.md or a digest node)")
    line: int = Field(description="1-based line of the struck claim")
    text: str = Field(description="The claim that stopped being true")
    since: str = Field(description="When it became true (YYYY-MM-DD, '' when unknown)")
    until: str = Field(description="When it stopped being true (YYYY-MM-DD)")
    replaced_by: str = Field(description="What replaced it (text or a wikilink; '' if unsaid)")


class ChangedFactsResult(JobResult):
    facts: list[ChangedFact]
    total: int = Field(description="Changes found before `limit`")


def _notes(root: Path) -> list[Path]:
    found = [root / "MEMORY.md"]
    digest = root / "digest"
    found += sorted(digest.rglob("*.md")) if digest.is_dir() else []
    return [path for path in found if path.is_file()]


def changed_facts(root: Path, since: dt.date | None) -> list[ChangedFact]:
    """Every superseded claim of MEMORY.md and the digest, newest change first."""
    facts: list[ChangedFact] = []
    for path in _notes(root):
        try:
            text = read_memory_text(path) if path.stat().st_size <= MAX_READ else ""
        except (OSError, ValueError):
            continue
        for claim in parse_claims(text) if "~~" in text else []:
            if claim.until is None or (since is not None and claim.until < since):
                continue
            facts.append(
                ChangedFact(
                    path=path.relative_to(root).as_posix(),
                    line=claim.line,
                    text=claim.text,
                    since=claim.since.isoformat() if claim.since else "",
                    until=claim.until.isoformat(),
                    replaced_by=claim.replaced_by,
                )
            )
    facts.sort(key=lambda fact: (fact.until, fact.path, fact.line), reverse=True)
    return facts


@JOBS.define(
    "memory_changed_facts", params=ChangedFactsParams, result=ChangedFactsResult, read_only=True
)
async def memory_changed_facts(ctx: JobContext, params: ChangedFactsParams) -> ChangedFactsResult:
    """The facts that changed: each superseded claim in MEMORY.md and the digest (struck through,
    `- ~~old~~ (FROM to UNTIL, replaced by "new")`) with when it held and what replaced it,
    the most recent change first."""
    facts = await asyncio.to_thread(changed_facts, ctx.root, params.since)
    return ChangedFactsResult(facts=facts[: params.limit], total=len(facts))


def note_claims(text: str) -> list[dict[str, Any]]:
    """The note's timed claims (`notes/claims`) for its timeline: line, text, when it held,
    what replaced it and the cards it rests on."""
    return [
        {
            "line": claim.line,
            **claim.brief(),
            "superseded": claim.superseded,
            "cards": link_targets(claim.provenance),
        }
        for claim in parse_claims(text)
    ]
