"""Tool-result offload: under context pressure, a long output stays as head + tail + a file.

Tool results enter the context whole (each tool caps its own output: `read` pages, `bash`'s
`max_output_bytes`, ...). Only when the context passes the compaction threshold does the
conversation offload long results (`Conversation.offload_under_pressure`): the full text goes to
`tool_result/<uuid>.txt` and the context keeps about `threshold` characters of head and tail,
which lines were left out and where they are, so the model can `read` them page by page.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from remecli.conversation.full_output import full_output_file
from remecli.llm.blocks import output_text
from remecli.notes.files import PRIVATE_FILE_MODE, atomic_write_text
from remecli.notes.redact import redact_text

if TYPE_CHECKING:
    from remecli.conversation.entries import Entry, ToolResultBlock
    from remecli.llm.conversation_state import ContextMessage

log = logging.getLogger(__name__)

REFERENCE_PREFIX = "[Full content saved to: "
HEADER_LINES = 3  # "tool: …", "created: …", blank: the output starts on line 4 of its file


class ToolResultStore:
    """Saves long tool outputs to `dir/<uuid>.txt` and removes files past retention.

    `retention_days=0` keeps files forever. The reference shown to the model is relative to
    `display_root` (default: the working dir, giving `tool_result/<uuid>.txt`) when the file
    lies under it, else absolute; pass the tools' workspace so the read tool can open it.
    """

    def __init__(
        self,
        dir: Path | str,
        threshold: int = 1000,
        retention_days: int = 7,
        *,
        display_root: Path | str | None = None,
    ) -> None:
        self.dir = Path(dir)
        self.threshold = threshold
        self.retention_days = retention_days
        self.display_root = Path(display_root) if display_root else self.dir.parent

    def needs_offload(self, text: str) -> bool:
        """True when `text` is longer than the threshold and not already offloaded."""
        return len(text) > self.threshold and REFERENCE_PREFIX not in text[-400:]

    def offload(self, tool_name: str, text: str) -> str:
        """The text to keep in the context: `text` itself, or head + tail + file reference."""
        return self.offload_detail(tool_name, text)[0]

    def offload_detail(self, tool_name: str, text: str) -> tuple[str, Path | None]:
        """Like `offload`, also returning the saved file (None when nothing was offloaded).

        When the file cannot be written the text stays whole: a result is never cut without
        the rest being readable somewhere.
        """
        if not self.needs_offload(text):
            return text, None
        full = full_output_file(text)
        verbatim = full is None
        try:  # a tool's full output already in this store is referenced, never copied again
            path = (
                full if full is not None and self.holds(str(full)) else self.save(tool_name, text)
            )
        except OSError as exc:
            log.warning("could not save a tool result to %s; kept it whole: %s", self.dir, exc)
            return text, None
        kept = self.preview(text, self.reference(path), verbatim)
        self.cleanup()
        return kept, path

    def preview(self, text: str, reference: str, verbatim: bool = True) -> str:
        """About `threshold` characters of `text` (head and tail, cut at line ends when that
        keeps most of them), which lines of the saved file were left out, and the reference."""
        head_len = self.threshold // 2
        tail_len = self.threshold - head_len
        head = text[:head_len]
        end_of_line = head.rfind("\n")
        if end_of_line >= head_len // 2:
            head = head[: end_of_line + 1]
        tail = text[-tail_len:]
        start_of_line = tail.find("\n")
        if 0 <= start_of_line < tail_len // 2:
            tail = tail[start_of_line + 1 :]
        gap_start, gap_end = len(head), len(text) - len(tail)
        where = "; the saved file holds the whole output"
        if verbatim:
            first = text.count("\n", 0, gap_start) + 1 + HEADER_LINES
            last = text.count("\n", 0, gap_end - 1) + 1 + HEADER_LINES
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            where = f": {span} of the saved file, `read` it with offset={first}"
        mark = f"…[{gap_end - gap_start} characters omitted{where}]…"
        return (
            f"{head.rstrip(chr(10))}\n{mark}\n{tail.rstrip(chr(10))}\n"
            f"{REFERENCE_PREFIX}{reference}]"
        )

    def save(self, tool_name: str, text: str) -> Path:
        """Write the full output to a new file that starts with tool name and creation time
        (`HEADER_LINES` lines, then the output).

        When the result says the tool kept its whole output on disk (its shown tail was cut),
        that output is what the file holds, with the size cap it was kept under.
        """
        path = self.dir / f"{uuid.uuid4().hex}.txt"
        created = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        body = text
        full = full_output_file(text)
        if full is not None:
            whole = full.read_bytes().decode("utf-8", errors="replace")
            body = f"{text.splitlines()[0]}\n(the whole output as the tool produced it)\n\n{whole}"
        record = f"tool: {tool_name}\ncreated: {created}\n\n{body}"
        atomic_write_text(path, redact_text(record), new_mode=PRIVATE_FILE_MODE)  # no secret kept
        return path

    def saved_file(self, kept: str) -> Path | None:
        """The file an offloaded result names (None when `kept` was not offloaded)."""
        start = kept.rfind(REFERENCE_PREFIX, max(0, len(kept) - 400))
        if start < 0:
            return None
        raw = kept[start + len(REFERENCE_PREFIX) :].rstrip().removesuffix("]")
        path = Path(raw)
        return path if path.is_absolute() else self.display_root / path

    def holds(self, raw_path: str) -> bool:
        """True when `raw_path` (as a tool was given it: relative to `display_root`, or
        absolute) names a file in this store's folder: an offloaded or a full output."""
        path = Path(raw_path).expanduser()
        if not path.is_absolute():
            path = self.display_root / path
        try:
            path.resolve().relative_to(self.dir.resolve())
        except (ValueError, OSError):
            return False
        return True

    def reference(self, path: Path) -> str:
        """How the model is told where the full content is."""
        try:
            return path.resolve().relative_to(self.display_root.resolve()).as_posix()
        except ValueError:
            return str(path.resolve())

    def cleanup(self, now: float | None = None) -> int:
        """Remove saved outputs older than `retention_days`; returns how many were removed."""
        if self.retention_days <= 0 or not self.dir.is_dir():
            return 0
        cutoff = (now if now is not None else time.time()) - self.retention_days * 86_400
        removed = 0
        for entry in os.scandir(self.dir):
            if not (entry.is_file() and entry.name.endswith(".txt")):
                continue
            try:
                if entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except FileNotFoundError:
                continue
            except OSError as exc:
                log.warning("could not remove old tool result %s: %s", entry.path, exc)
        return removed


def offload_order(
    candidates: list[tuple[str, ToolResultBlock]],
    entries: list[tuple[str, Entry]],
    store: ToolResultStore,
) -> list[tuple[str, ToolResultBlock]]:
    """The long tool results `candidates` (`(message id, block)`) in the order they are offloaded
    under context pressure: those of earlier turns first, largest first; then those of the
    current turn (since the last user message), oldest first, so the result the model just
    asked for goes last. A `read` of a file in the store is never offloaded (it would be cut
    again); `entries` are the live `(message id, entry)` pairs of the session."""
    position = {mid: i for i, (mid, _entry) in enumerate(entries)}
    sources = [entry.ctx if entry.ctx is not None else entry.msg for _mid, entry in entries]
    turn_start = max((i for i, m in enumerate(sources) if m.role == "user"), default=0)
    rereads = {
        block.id
        for message in sources
        for block in message.content
        if block.type == "tool_call" and block.name == "read" and store.holds(_path_of(block))
    }
    eligible = [(mid, b) for mid, b in candidates if not (b.name == "read" and b.id in rereads)]
    earlier = [c for c in eligible if position.get(c[0], 0) < turn_start]
    current = [c for c in eligible if position.get(c[0], 0) >= turn_start]
    earlier.sort(key=lambda c: len(output_text(c[1].output)), reverse=True)
    return earlier + current


def _path_of(call: object) -> str:
    """The `path` argument of a tool call ("" when there is none)."""
    raw = getattr(call, "input", None)
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return ""
    path = args.get("path") if isinstance(args, dict) else None
    return path if isinstance(path, str) else ""


def offload_messages(store: ToolResultStore, messages: list[ContextMessage]) -> int:
    """Offload every oversized tool result in `messages` in place (library `compact_tool_result`);
    returns how many were offloaded. Blocking file I/O: call it off the event loop."""
    from remecli.llm.conversation_state import text_block

    count = 0
    for msg in messages:
        for block in msg.content:
            if block.type != "tool_result":
                continue
            output = block.output
            text = (
                output
                if isinstance(output, str)
                else "".join(getattr(b, "text", "") for b in output)
            )
            kept, path = store.offload_detail(block.name, text)
            if path is None:
                continue
            others = [] if isinstance(output, str) else [b for b in output if b.type != "text"]
            block.output = [text_block(kept), *others] if others else kept
            count += 1
    return count
