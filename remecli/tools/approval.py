"""The approval policy (`tools.approval`) and the middleware that applies it to tool calls.

Modes: `never` runs every call; `dangerous` asks only when `danger_reason` finds a risk;
`always` asks for every call of a tool that is not read-only. Read-only tools never ask. In
every mode, `never` included, a file tool (read, write, edit, ls) whose real path is outside the
workspace asks for that exact call (`file_reach`); when no one can answer (`NoApprover`: a `-p`
run without a terminal), the call is refused with what to do instead.

Answers: "yes" allows this one call; "no" denies it (the model gets "Denied by user" and the
loop goes on); "always" allows, until the conversation ends (/new, /clear), later calls of the
same tool with the same kind of risk (e.g. bash + "recursive-delete"; in `always` mode a safe
call's kind is "any") whose paths all stay inside the workspace; a call that reaches outside
it is covered only by an "always" given to that exact call. So approving `rm -r build` never
silently approves `git push --force` or `rm -rf ~`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from remecli.llm.middleware import Decide, LoopState, Middleware, Permission, ToolUse
from remecli.tools.change_preview import change_preview
from remecli.tools.context import ToolContext
from remecli.tools.danger import classify, danger_reason
from remecli.tools.file_reach import file_reach

__all__ = [
    "ApprovalAnswer",
    "ApprovalMiddleware",
    "ApprovalMode",
    "ApprovalRequest",
    "NoApprover",
    "danger_reason",
]

ApprovalMode = Literal["never", "dangerous", "always"]
ApprovalAnswer = Literal["yes", "no", "always"]
ANY_KIND = "any"


@dataclass
class ApprovalRequest:
    """What the user is asked to approve. `kind` is what an "always" answer covers."""

    tool_name: str
    arguments: dict[str, Any]
    reason: str
    kind: str = ANY_KIND
    scope: str = "the workspace"  # what an "always" answer covers, for the prompt
    preview: str = ""  # a write/edit's diff against the file as it is now
    outside: bool = False  # a file tool leaving the workspace: asked in every mode

    @property
    def always_covers(self) -> str:
        """One line for the prompt: what answering "always" allows."""
        if self.scope == "the workspace":
            return f"later {self.tool_name} calls that {self.kind} inside the workspace"
        return "this exact call again"


class NoApprover(RuntimeError):
    """Raised by an ask callback when no one can answer (a `-p` run without a terminal)."""


AskCallback = Callable[[ApprovalRequest], Awaitable[str]]
_ALWAYS_EXACT = {"secret-read", "indirect-command", "unparsed"}


@dataclass(eq=False)
class ApprovalMiddleware(Middleware):
    """Decides the runtime's permission ASKs for remecli's tools by asking the user.

    The lead's UI passes `ask`, which shows the request and returns "yes", "no" or "always".
    Questions are asked one at a time. The runtime's DENY is respected, and its ALLOW of a tool
    that is not read-only; its ASK, and its blanket ALLOW of read-only tools, are decided here.
    """

    mode: ApprovalMode
    ctx: ToolContext
    ask: AskCallback
    allowed_for_session: set[tuple[str, str, str]] = field(default_factory=set)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in ("never", "dangerous", "always"):
            raise ValueError(
                f"tools.approval must be never, dangerous or always, not {self.mode!r}"
            )

    def request_for(self, tool_name: str, arguments: Mapping[str, Any]) -> ApprovalRequest | None:
        """The question this call needs under the current mode, or None to run it unasked.

        A file tool leaving the workspace is asked about in every mode, for that exact call.
        """
        reach = file_reach(tool_name, arguments, self.ctx)
        if reach is None and self.mode == "never":
            return None
        found = reach or classify(tool_name, arguments, self.ctx)
        scope = self._scope(arguments)
        preview = change_preview(tool_name, arguments, self.ctx)
        if found is not None:
            if reach is not None or found.kind in _ALWAYS_EXACT:  # "always": this call only
                scope = json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False)
            return ApprovalRequest(
                tool_name,
                dict(arguments),
                found.reason,
                found.kind,
                scope,
                preview,
                outside=reach is not None,
            )
        if self.mode == "always":
            reason = f"run {tool_name}"
            return ApprovalRequest(tool_name, dict(arguments), reason, ANY_KIND, scope, preview)
        return None

    def _scope(self, arguments: Mapping[str, Any]) -> str:
        """ "the workspace" when every path-like word of the call stays inside it, else the
        call itself (an "always" then covers only that exact call)."""
        words: list[str] = []
        for value in arguments.values():
            if isinstance(value, str):
                words += value.replace("=", " ").split()
        for word in words:
            word = word.strip("'\"`;|&()<>")
            looks_like_path = word.startswith(("/", "~", "..", "$")) or "/.." in word
            if looks_like_path and (word.startswith("$") or not self.ctx.is_inside_workspace(word)):
                return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False)
        return "the workspace"

    async def check_permission(self, loop: LoopState, use: ToolUse, decide: Decide) -> Permission:
        """Turn the runtime's ASK into allow or deny following the mode and the user's answer.

        The runtime allows every read-only tool outright (its read-only fast path; remecli sets
        no permission rules): that allow is decided here too, so a read through a symlink out
        of the workspace, or of a secret, still asks.
        """
        decision = await decide()
        if decision.verdict == "deny" or (decision.verdict == "allow" and not use.read_only):
            return decision
        arguments = use.arguments
        if (
            use.read_only
            and file_reach(use.name, arguments, self.ctx) is None
            and (self.mode == "never" or classify(use.name, arguments, self.ctx) is None)
        ):
            return _allow("read-only tool")  # unless it reads a secret or outside the workspace
        request = self.request_for(use.name, arguments)
        if request is None:
            return _allow(f"approval mode {self.mode!r} runs this call without asking")
        return await self._decide(request)

    def reset_session(self) -> None:
        """Forget every "always" answer (a new conversation starts)."""
        self.allowed_for_session.clear()

    async def _decide(self, request: ApprovalRequest) -> Permission:
        key = (request.tool_name, request.kind, request.scope)
        async with self._lock:  # one question at a time; a prior "always" may settle the rest
            if key in self.allowed_for_session:
                return _allow("allowed for this session by the user")
            try:
                answer = str(await self.ask(request)).strip().lower()
            except asyncio.CancelledError:
                raise
            except NoApprover:
                return _deny(_unanswered(request, self.ctx))
            except Exception as exc:  # a broken prompt must not run the call
                return _deny(f"Denied: the approval prompt failed ({exc}).")
            if answer == "always":
                self.allowed_for_session.add(key)
                return _allow("allowed for this session by the user")
            if answer == "yes":
                return _allow("allowed once by the user")
        return _deny(
            f"Denied by user: the user did not allow this {request.tool_name} call "
            f"({request.reason}). Do not retry it unchanged; ask the user how to proceed or "
            f"take another way."
        )


def _unanswered(request: ApprovalRequest, ctx: ToolContext) -> str:
    """The refusal the model gets when no one is there to approve: what the user can do."""
    if request.outside:
        return (
            f"Refused: {request.reason}. A file tool leaving the workspace needs the user's "
            f"approval in every approval mode, and no one can answer here (a -p one-shot or a "
            f"front-end without prompts). Tell the user to run remecli interactively to approve "
            f"it, or to move the file into the workspace ({ctx.workspace}); do not retry it."
        )
    return (
        f"Refused: this {request.tool_name} call needs the user's approval ({request.reason}) "
        f"and remecli is running non-interactively; the user can run remecli interactively to "
        f"approve it, or allow such calls with tools.approval=never."
    )


def _allow(message: str) -> Permission:
    return Permission("allow", message)


def _deny(message: str) -> Permission:
    return Permission("deny", message)
