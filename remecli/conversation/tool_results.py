"""Tool-result offload: oversized outputs enter the context as head + tail + a file reference."""

from __future__ import annotations

import datetime as dt
import logging
import os
import time
import uuid
from pathlib import Path

from remecli.conversation.full_output import full_output_file
from remecli.notes.files import PRIVATE_FILE_MODE, atomic_write_text

log = logging.getLogger(__name__)

REFERENCE_PREFIX = "[Full content saved to: "
OMITTED_MARK = "\n…[{omitted} characters omitted]…\n"


class ToolResultStore:
    """Saves oversized tool outputs to `dir/<uuid>.txt` and removes files past retention.

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
        """Like `offload`, also returning the saved file (None when nothing was offloaded)."""
        if not self.needs_offload(text):
            return text, None
        path = self.save(tool_name, text)
        head_len = self.threshold // 2
        tail_len = self.threshold - head_len
        omitted = len(text) - head_len - tail_len
        kept = text[:head_len] + OMITTED_MARK.format(omitted=omitted) + text[-tail_len:]
        self.cleanup()
        return f"{kept}\n{REFERENCE_PREFIX}{self.reference(path)}]", path

    def save(self, tool_name: str, text: str) -> Path:
        """Write the full output to a new file that starts with tool name and creation time.

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
        atomic_write_text(path, record, new_mode=PRIVATE_FILE_MODE)
        return path

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


def offload_messages(store: ToolResultStore, messages: list) -> int:
    """Offload every oversized tool result in `messages` in place (library `compact_tool_result`);
    returns how many were offloaded. Blocking file I/O: call it off the event loop."""
    from agentscope.message import TextBlock

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
            block.output = [TextBlock(text=kept), *others] if others else kept
            count += 1
    return count
