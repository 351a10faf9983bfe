"""Integrating one unit into the digest: a confined agent acts, the code verifies and records.

The agent's writes are staged (`agent_tools.StagedFileTools`), never written to `digest/` by
the agent. Afterwards exactly one valid node the agent changed is accepted: the one its receipt
names, or, when the receipt is missing or names no changed node, the only valid node it changed
(receipt recovery; the action is then inferred: a new file is CREATE, a change limited to
`## Sources` is CORROBORATE, any other change REFINE). A CORROBORATE answer without a change
that names a valid existing node is a justified no-op and a success: the node already says what
the unit says (code adds the unit's cards to its `## Sources` and confirms it). The accepted
node is written once, with its provenance, if it is still what the agent read (a concurrent
edit is never overwritten); the agent's other staged writes are dropped. Nothing valid: the unit
is tried once more with the reason; a second failure fails the unit (its cards are retried next
run). A dream killed at any point leaves the digest as it was, or with whole verified nodes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass

from remecli.config.settings import LLMSettings
from remecli.knowledge.dream import prompts
from remecli.knowledge.dream.agent_tools import DigestScope, DigestSearch, StagedFileTools
from remecli.knowledge.dream.answered_node import created_node
from remecli.knowledge.dream.digest import (
    ACTIONS,
    body_without_sources,
    node_problem,
    search_nodes,
    snapshot,
    with_provenance,
)
from remecli.knowledge.dream.extract import Unit
from remecli.llm.chat_model import ChatModel
from remecli.llm.json_answer import json_object
from remecli.llm.tool_spec import ToolSpec
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import ChangedMeanwhile, MemoryWriter

log = logging.getLogger(__name__)
CANDIDATES = 5


@dataclass
class UnitOutcome:
    """What happened to one unit: the action taken on which node, or why it failed."""

    unit: Unit
    ok: bool
    action: str = ""
    path: str = ""
    recovered: bool = False
    detail: str = ""
    changed: bool = True  # False: a justified CORROBORATE that found the node already complete
    before: str | None = None  # the node's text before (None: created)
    after: str | None = None  # the node's text after
    version: int | None = None  # the version the write made in the node's history
    before_version: int | None = None  # the history's version of `before`


class UnitIntegrator:
    """Runs the agent for one unit, verifies its write and records provenance."""

    def __init__(
        self,
        working_dir: WorkingDir,
        model: ChatModel,
        *,
        language: str,
        max_iters: int,
        retries: int,
        writer: MemoryWriter,
        llm: LLMSettings | None = None,
        review: bool = False,
    ) -> None:
        self.llm = llm or LLMSettings()
        self.working_dir = working_dir
        self.writer = writer  # the composition root's one writer (versions, redaction)
        self.model = model
        self.language = language
        self.max_iters = max_iters
        self.retries = retries
        self.review = review  # True: verified changes are proposed (in the changeset), not written

    async def integrate(self, unit: Unit, today: dt.date) -> UnitOutcome:
        """Exactly one action for `unit`, verified; retried once."""
        problem = ""
        for _attempt in range(2):
            before = await asyncio.to_thread(snapshot, self.working_dir)
            scope = DigestScope(self.working_dir, today)
            tools = StagedFileTools(self.working_dir, scope, self.writer)
            try:
                answer = await self._run_agent(unit, today, before, problem, tools)
            except asyncio.CancelledError:  # interrupted: nothing was written
                raise
            except Exception as exc:  # the provider's error: nothing was written, fail the unit
                log.warning("dream unit %r failed: %s", unit.name, exc)
                from remecli.llm.errors import classify

                return UnitOutcome(unit, False, detail=classify(exc, self.llm).message)
            outcome, problem = await asyncio.to_thread(
                self._verify, unit, today, before, answer, dict(tools.staged)
            )
            if outcome is not None:
                return outcome
            log.info(
                "dream unit %r not accepted (%s); the model answered %r",
                unit.name,
                problem,
                answer[:2000],
            )
        return UnitOutcome(unit, False, detail=problem)

    # ------------------------------------------------------------ agent
    async def _run_agent(
        self,
        unit: Unit,
        today: dt.date,
        before: dict[str, str],
        problem: str,
        tools: StagedFileTools,
    ) -> str:
        from remecli.llm.agent_loop import build_agent_loop, final_reply
        from remecli.llm.message import Message

        search = ToolSpec.from_function(
            DigestSearch(self.working_dir, tools.staged).search_digest,
            name="search_digest",
            read_only=True,
            allowed="digest search",
        )
        hits = search_nodes(before, f"{unit.name} {unit.summary}", CANDIDATES)
        candidates = "\n".join(
            f"- {h['path']} ({h['kind']}, {h['status']}): {h['name']}: {h['description']}"
            for h in hits
        )
        system, user = prompts.prompt_pair(
            "integrate",
            self.language,
            {"summary": unit.summary, "name": unit.name},
            today=f"{today:%Y-%m-%d}",
            bucket=unit.bucket,
            paths=", ".join(unit.paths),
            candidates=candidates or "(none)",
        )
        if problem:
            user += "\n\n" + prompts.prompt("integrate_retry", self.language, problem=problem)
        loop = build_agent_loop(
            self.model,
            name="memory-dream",
            system_prompt=system,
            tools=[*tools.function_tools(), search],
            max_retries=self.retries,
            max_iters=self.max_iters,
        )
        reply = await final_reply(loop.run([Message.user(user)]))
        return reply.message.text.strip()

    # ------------------------------------------------------------ verification
    def _verify(
        self,
        unit: Unit,
        today: dt.date,
        before: dict[str, str],
        answer: str,
        staged: dict[str, str],
    ) -> tuple[UnitOutcome | None, str]:
        """Accept one valid node the agent changed (only its own staged writes are looked at)."""
        changed = [rel for rel, text in staged.items() if before.get(rel) != text]
        valid = [p for p in changed if node_problem(p, staged[p]) is None]
        receipt = json_object(answer) or {}
        action = str(receipt.get("action") or "").strip().upper()
        path = str(receipt.get("path") or "").strip()
        if not changed and _justified_no_op(action, path, before):
            return self._record(unit, today, before, path, before[path], action, receipt), ""
        made = None if changed else created_node(unit, answer, receipt, before)
        if made is not None:  # a new node answered without a write: made by code
            outcome = self._record(unit, today, before, made[0], made[1], "CREATE", receipt)
            outcome.recovered = True
            return outcome, ""
        recovered = False
        if not (
            action in ACTIONS and path in valid and (action == "CREATE") == (path not in before)
        ):
            named_invalid = path in changed and path not in valid  # its own target is broken
            if len(valid) != 1 or named_invalid:
                if not changed:
                    return None, "no digest node was written or changed"
                problems = [
                    node_problem(p, staged.get(p)) for p in ([path] if named_invalid else changed)
                ]
                return None, "; ".join(p for p in problems if p) or "more than one node changed"
            path, recovered = valid[0], True
            action = self._infer_action(before.get(path), staged[path])
        outcome = self._record(unit, today, before, path, staged[path], action, receipt)
        outcome.recovered = recovered
        return outcome, ""

    def _record(
        self,
        unit: Unit,
        today: dt.date,
        before: dict[str, str],
        path: str,
        node: str,
        action: str,
        receipt: dict[str, object],
    ) -> UnitOutcome:
        """Write `node` with its provenance set by code (nothing when that changes nothing)."""
        text = with_provenance(
            path,
            node,
            before.get(path),
            action=action,
            cards=unit.paths,
            today=today,
            note=str(receipt.get("note") or unit.summary),
            claim=str(receipt.get("claim") or unit.summary),
        )
        outcome = UnitOutcome(unit, True, action, path, changed=text != before.get(path))
        outcome.before, outcome.after = before.get(path), text
        if not outcome.changed or self.review:
            return outcome
        try:
            written = self.writer.write(
                self.working_dir.root / path,
                text,
                source="dream",
                allow_shrink=True,
                expected=before.get(path),
            )
        except ChangedMeanwhile:
            return UnitOutcome(
                unit, False, detail=f"{path} was changed by someone else during the dream"
            )
        outcome.version = written.version
        if before.get(path) is not None and written.version is not None:
            prior = [v for v in self.writer.history(path) if v.version < written.version]
            outcome.before_version = prior[-1].version if prior and not prior[-1].deleted else None
        return outcome

    @staticmethod
    def _infer_action(old: str | None, new: str) -> str:
        if old is None:
            return "CREATE"
        return "CORROBORATE" if body_without_sources(old) == body_without_sources(new) else "REFINE"


def _justified_no_op(action: str, path: str, before: dict[str, str]) -> bool:
    """True for a CORROBORATE answer without a write that names a valid existing node: the
    node already says what the unit says (its new sources are added by code)."""
    return action == "CORROBORATE" and path in before and node_problem(path, before[path]) is None
