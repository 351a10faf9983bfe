"""The line-mode front-end's answers to the session's screen requests and questions: pages are
printed, the clipboard is reached with OSC 52 (and tmux's paste buffer), a session is picked by
number, an approval is a y/n/a question."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys

from rich.console import Console
from rich.markdown import Markdown

from remecli.agent import events as ev
from remecli.commands import session_events as se
from remecli.commands.frontend import FrontEndInfo
from remecli.ui.clipboard import copied_line, sized

HORSE_LINE = "🐎 马到成功 — success the moment the horse arrives. Happy Year of the Horse 2026!"
ABOUT_PLAIN = FrontEndInfo(keys=(), config_hint="`remecli config=cli key=value …`", log_file="")


def call_key(name: str, arguments: object) -> str:
    """One spelling of a tool call, whether its arguments come as text or as a dict."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return f"{name}:{arguments}"
    return f"{name}:{json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"


async def read_line(prompt: str) -> str:
    """`input(prompt)` that can be cancelled: the line is read when the terminal has one, so no
    thread is left blocked on stdin (it would take the next line typed at the prompt). The
    prompt goes to stderr, with tool activity (`-p`'s stdout is the answer alone)."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    loop = asyncio.get_running_loop()
    try:
        if not sys.stdin.isatty():  # a pipe may hold several lines: input() takes one
            raise ValueError("not a terminal")
        fd = sys.stdin.fileno()
        line: asyncio.Future[str] = loop.create_future()

        def take() -> None:
            if not line.done():
                line.set_result(_read(fd))

        loop.add_reader(fd, take)
    except (NotImplementedError, OSError, ValueError):  # no reader on this loop or stdin
        return await asyncio.to_thread(input)
    try:
        return await line
    finally:
        loop.remove_reader(fd)


def _read(fd: int) -> str:
    """One line from a terminal (in canonical mode a read returns at most one), "" at its end."""
    try:
        return os.read(fd, 4096).decode(errors="replace")
    except OSError:
        return ""


class PlainFrontEnd:
    """Screen requests and questions in a line-mode terminal."""

    def __init__(self, out: Console, err: Console) -> None:
        self.out = out
        self.err = err
        self.quit_requested = False
        self.forget_requested = False
        self.resumed = False
        self.shown_calls: set[str] = set()  # tool calls whose ⚙ line is on screen
        self.picking: asyncio.Future[str] | None = None  # done: the session picker is closed

    def interrupt(self) -> None:
        """Ctrl+C: close the session picker if it is open (nothing is resumed)."""
        if self.picking is not None and not self.picking.done():
            self.picking.set_result("")

    async def answer(self, prompt: str, gone: asyncio.Future[str] | None) -> str | None:
        """The line typed at `prompt`; None if `gone` is done first (the question was closed)."""
        reading = asyncio.ensure_future(read_line(prompt))
        waits: set[asyncio.Future[str]] = {reading} if gone is None else {reading, gone}
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done():
            reading.cancel()  # and waited for: its stdin reader goes before the prompt's comes
            await asyncio.wait({reading})
            self.err.print()  # the line after the typed ^C
            return None
        return reading.result()

    async def show(self, event: object) -> bool:
        """Handle `event` if it is a screen request or a question; False otherwise."""
        if isinstance(event, ev.ApprovalRequest):
            if event.answer.done():  # the reply was cancelled before the question came up
                return True
            answer = await self.ask(event.request, event.answer)
            if answer is not None and not event.answer.done():  # not cancelled meanwhile
                event.answer.set_result(answer)
        elif isinstance(event, se.PickSession):
            self.picking = asyncio.get_running_loop().create_future()
            try:
                chosen = await self.pick_session(event)
            finally:
                self.picking = None
            if not event.answer.done():
                event.answer.set_result(chosen)
        elif isinstance(event, se.ShowPage):
            self.out.print(Markdown(event.markdown))
        elif isinstance(event, se.ForgetTyped):
            self.forget_requested = True
        elif isinstance(event, se.QuitRequested):
            self.quit_requested = True
        elif isinstance(event, se.CopyText):
            await self.copy(event.text, event.what)
        elif isinstance(event, se.Celebrate):
            self.out.print(HORSE_LINE)
        elif isinstance(event, se.Resumed):
            self.resumed = True
            return False  # the renderer prints it
        else:
            return False
        return True

    async def ask(self, request, gone: asyncio.Future[str]) -> str | None:
        """Approval prompt in line mode (under the call's ⚙ line, shown once); None when the
        reply is cancelled (Ctrl+C) before an answer: the session then cancels `gone`."""
        key = call_key(request.tool_name, dict(request.arguments))
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False)[:300]
        call = "" if key in self.shown_calls else f"\n⚙ {request.tool_name} {arguments}"
        self.shown_calls.add(key)
        diff = f"\n{request.preview}" if request.preview else ""  # a write/edit's change
        question = (
            f"{call}{diff}\n  needs your approval: {request.reason}\n  [y]es / [n]o / [a]lways: "
        )
        typed = await self.answer(question, gone)
        if typed is None:
            return None
        answer = typed.strip().lower()
        return {"y": "yes", "yes": "yes", "a": "always", "always": "always"}.get(answer, "no")

    async def copy(self, text: str, what: str) -> None:
        """`/copy`: OSC 52 (and tmux's paste buffer inside tmux), and a line saying where the
        text went; when stdout is no terminal, the text is printed instead."""
        stream = sys.stdout
        if stream.isatty():
            stream.write(f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a")
            stream.flush()
            line = await asyncio.to_thread(copied_line, text, sized(what, text))
            self.err.print(line, markup=False, highlight=False)
        else:
            self.err.print(f"{what} (not a terminal, so printed instead of copied):")
            self.out.print(text, markup=False, highlight=False)

    async def pick_session(self, event: se.PickSession) -> str | None:
        shown = list(event.sessions)[:20]  # most recent first, one-shots among them
        for n, info in enumerate(shown, 1):
            when = info.last_activity.replace("T", " ")[:16]
            kind = "one-shot (-p)  " if info.one_shot else ""
            self.err.print(
                f"{n:>3}. {when}  {info.messages:>4} msgs  {kind}{info.first_user_line}",
                markup=False,
                highlight=False,
            )
        typed = await self.answer("resume which (number, Enter cancels)? ", self.picking)
        answer = (typed or "").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(shown):
            return shown[int(answer) - 1].session_id
        return None
