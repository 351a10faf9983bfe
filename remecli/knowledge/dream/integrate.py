"""Integrating one unit into the digest: a confined agent acts, the code verifies and records.

The digest is snapshotted before the agent runs. Afterwards exactly one valid node the agent
changed is accepted: the one its receipt names, or, when the receipt is missing or names no
changed node, the only valid node it changed (receipt recovery; the action is then inferred: a
new file is CREATE, a change limited to `## Sources` is CORROBORATE, any other change REFINE).
The agent's other writes are undone; what anyone else changed meanwhile is never touched.
A CORROBORATE answer without a write that names a valid existing node is a justified no-op and
a success: the node already says what the unit says (code adds the unit's cards to its
`## Sources` and confirms it). Nothing valid: the agent's writes are undone and the unit is tried once more with the reason;
a second failure fails the unit (its cards are retried next run).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from remecli.config.settings import LLMSettings
from remecli.knowledge.cards import CardError, is_slug, read_card
from remecli.knowledge.cards_write import write_memory_file
from remecli.knowledge.dream import prompts
from remecli.knowledge.dream.digest import (
    ACTIONS,
    BUCKETS,
    body_without_sources,
    digest_dir,
    node_problem,
    search_nodes,
    snapshot,
    with_provenance,
)
from remecli.knowledge.dream.extract import Unit
from remecli.knowledge.summary_tools import ChangeRefused, MemoryFileTools, MemoryScope
from remecli.llm.chat_model import ChatModel
from remecli.llm.function_tool import CheckedFunctionTool
from remecli.llm.json_answer import json_object
from remecli.llm.runtime.messages import TextBlock, ToolResultState
from remecli.llm.runtime.tooling import PermissionBehavior, PermissionDecision, ToolChunk
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

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


class DigestScope(MemoryScope):
    """Read cards, MEMORY.md and the digest; change only digest nodes."""

    reason = "dream"

    def readable(self, target: Path) -> bool:
        """MEMORY.md, memory/**/*.md and digest/**/*.md."""
        digest = digest_dir(self.working_dir).resolve()
        if target.suffix == ".md" and target.is_relative_to(digest):
            return True
        return super().readable(target)

    def writable(self, target: Path) -> str | None:
        """Only `digest/<bucket>/<slug>.md`."""
        digest = digest_dir(self.working_dir).resolve()
        if (
            target.suffix == ".md"
            and target.parent.parent == digest
            and target.parent.name in BUCKETS
            and is_slug(target.stem)
        ):
            return None
        return self.allowed()

    def allowed(self) -> str:
        """What this scope allows."""
        return (
            "You may read MEMORY.md, memory/**/*.md and digest/**/*.md; you may change only "
            "digest nodes digest/<personal|procedure|wiki>/<slug>.md (slug: lower-case words "
            "joined by `-`)."
        )

    def missing_hint(self, target: Path) -> str:
        """Nothing extra."""
        return ""

    def prepare(self, target: Path, old: str | None, new: str, tool: str) -> str:
        """A node must keep valid frontmatter."""
        try:
            note = read_card(new)
        except CardError as exc:
            raise ChangeRefused(f"Refused: {exc} Nothing was written.") from None
        if not note.has_frontmatter:
            raise ChangeRefused(
                "Refused: a node starts with YAML frontmatter (`name`, `description`) between "
                "`---` lines. Nothing was written."
            )
        return new


class DigestSearch:
    """The `search_digest` tool over the digest as it is now."""

    def __init__(self, working_dir: WorkingDir) -> None:
        self.working_dir = working_dir

    async def search_digest(self, query: str, limit: int | None = None) -> ToolChunk:
        """Find digest nodes by words; answers JSON hits (path, name, description, kind, status).

        Args:
            query: Words to look for, e.g. "postgres version atlas".
            limit: The most hits to return (default 5).
        """
        try:
            count = CANDIDATES if limit is None else min(max(int(limit), 1), 20)
        except (TypeError, ValueError):
            count = CANDIDATES
        nodes = await asyncio.to_thread(snapshot, self.working_dir)
        hits = await asyncio.to_thread(search_nodes, nodes, str(query), count)
        text = json.dumps(hits, ensure_ascii=False)
        return ToolChunk(content=[TextBlock(text=text)], state=ToolResultState.RUNNING)


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
    ) -> None:
        self.llm = llm or LLMSettings()
        self.working_dir = working_dir
        self.writer = writer  # the composition root's one writer (versions, redaction)
        self.model = model
        self.language = language
        self.max_iters = max_iters
        self.retries = retries

    async def integrate(self, unit: Unit, today: dt.date) -> UnitOutcome:
        """Exactly one action for `unit`, verified; retried once."""
        problem = ""
        for _attempt in range(2):
            before = await asyncio.to_thread(snapshot, self.working_dir)
            scope = DigestScope(self.working_dir, today)
            tools = MemoryFileTools(self.working_dir, today, scope, writer=self.writer)
            try:
                answer = await self._run_agent(unit, today, before, problem, tools)
            except asyncio.CancelledError:  # interrupted: leave the digest as it was
                self._undo(before, tools.written, keep=None)
                raise
            except Exception as exc:  # the provider's error: undo, fail the unit
                log.warning("dream unit %r failed: %s", unit.name, exc)
                self._undo(before, tools.written, keep=None)
                from remecli.llm.errors import classify

                return UnitOutcome(unit, False, detail=classify(exc, self.llm).message)
            outcome, problem = await asyncio.to_thread(
                self._verify, unit, today, before, answer, list(tools.written)
            )
            if outcome is not None:
                return outcome
        return UnitOutcome(unit, False, detail=problem)

    # ------------------------------------------------------------ agent
    async def _run_agent(
        self,
        unit: Unit,
        today: dt.date,
        before: dict[str, str],
        problem: str,
        tools: MemoryFileTools,
    ) -> str:
        from remecli.knowledge.summary_tools import NoCompression
        from remecli.llm.retry import RetryMiddleware
        from remecli.llm.runtime.agents import Agent, ContextConfig, InjectionConfig, ReActConfig
        from remecli.llm.runtime.messages import UserMsg
        from remecli.llm.runtime.tooling import Toolkit

        allow = PermissionDecision(PermissionBehavior.ALLOW, "digest search")
        search = CheckedFunctionTool(
            DigestSearch(self.working_dir).search_digest,
            name="search_digest",
            is_read_only=True,
            permission=allow,
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
        agent = Agent(
            name="memory-dream",
            system_prompt=system,
            model=self.model.agent_model(),
            toolkit=Toolkit(tools=[*tools.function_tools(), search]),
            middlewares=[RetryMiddleware(self.retries), NoCompression()],
            react_config=ReActConfig(
                max_iters=self.max_iters, interruption_raise_cancelled_error=True
            ),
            context_config=ContextConfig(tool_result_limit=10**9),
            injection_config=InjectionConfig(inject_runtime_state=False),
        )
        reply = await agent.reply(UserMsg(name="user", content=user))
        return (reply.get_text_content() or "").strip()

    # ------------------------------------------------------------ verification
    def _verify(
        self, unit: Unit, today: dt.date, before: dict[str, str], answer: str, written: list[str]
    ) -> tuple[UnitOutcome | None, str]:
        """Accept one valid node the agent changed (only its own writes are looked at)."""
        after = {rel: _read(self.working_dir.root / rel) for rel in written}
        changed = [rel for rel in written if before.get(rel) != after.get(rel)]
        valid = [p for p in changed if node_problem(p, after.get(p)) is None]
        receipt = json_object(answer) or {}
        action = str(receipt.get("action") or "").strip().upper()
        path = str(receipt.get("path") or "").strip()
        recovered = False
        if not changed and _justified_no_op(action, path, before):
            self._undo(before, written, keep=None)
            return self._record(unit, today, before, path, before[path], action, receipt), ""
        if not (
            action in ACTIONS and path in valid and (action == "CREATE") == (path not in before)
        ):
            named_invalid = path in changed and path not in valid  # its own target is broken
            if len(valid) != 1 or named_invalid:
                self._undo(before, written, keep=None)
                if not changed:
                    return None, "no digest node was written or changed"
                problems = [
                    node_problem(p, after.get(p)) for p in ([path] if named_invalid else changed)
                ]
                return None, "; ".join(p for p in problems if p) or "more than one node changed"
            path, recovered = valid[0], True
            action = self._infer_action(before.get(path), str(after[path]))
        self._undo(before, written, keep=path)
        outcome = self._record(unit, today, before, path, str(after[path]), action, receipt)
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
        )
        changed = text != before.get(path)
        if changed:
            write_memory_file(self.writer, self.working_dir.root / path, text, "dream")
        return UnitOutcome(unit, True, action, path, changed=changed)

    @staticmethod
    def _infer_action(old: str | None, new: str) -> str:
        if old is None:
            return "CREATE"
        return "CORROBORATE" if body_without_sources(old) == body_without_sources(new) else "REFINE"

    def _undo(self, before: dict[str, str], written: list[str], keep: str | None) -> None:
        """Undo the agent's writes (`written`) except `keep`'s; nobody else's change is touched."""
        for rel in written:
            if rel == keep:
                continue
            target = self.working_dir.root / rel
            if rel in before:
                if _read(target) != before[rel]:
                    write_memory_file(self.writer, target, before[rel], "dream (undo)")
            else:
                target.unlink(missing_ok=True)


def _justified_no_op(action: str, path: str, before: dict[str, str]) -> bool:
    """True for a CORROBORATE answer without a write that names a valid existing node: the
    node already says what the unit says (its new sources are added by code)."""
    return action == "CORROBORATE" and path in before and node_problem(path, before[path]) is None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
