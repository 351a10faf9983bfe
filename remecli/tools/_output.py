"""Cleaning and tail-truncating command output: the one helper bash and execute_code share."""

from __future__ import annotations

import re
from dataclasses import dataclass

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks), other 2-char escapes.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[()*+#%][ -~]"
    r"|\x1b[@-Z\\-_]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences and stray control characters (keeps \\t and \\n)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


def clean_output(text: str) -> str:
    """Strip ANSI codes and collapse carriage-return overwrites (progress bars) per line."""
    text = strip_ansi(text.replace("\r\n", "\n"))
    if "\r" not in text:
        return text
    return "\n".join(
        line.rsplit("\r", 1)[-1] if "\r" in line else line for line in text.split("\n")
    )


@dataclass
class TailOutput:
    """Output after truncation: the kept text and what was cut."""

    text: str
    total_lines: int
    first_shown: int  # 1-based number of the first kept line
    truncated: bool

    def notice(self, saved: bool = False) -> str:
        """The line telling the model what was cut and how to see it ('' when nothing was);
        `saved`: the whole output is in the file named just above, so that is where to look."""
        if not self.truncated:
            return ""
        shown = f"showing lines {self.first_shown}-{self.total_lines} of {self.total_lines}"
        if saved:
            return (
                f"[Output truncated: {shown}. The rest is in the file named above: `read` it "
                f"(offset/limit) or grep it; no need to run the command again.]"
            )
        return (
            f"[Output truncated: {shown}. To see the rest, redirect the output to a file and "
            f"read it with `read` (offset/limit), or filter it with grep/head/tail.]"
        )

    def render(self, saved: bool = False) -> str:
        """The text the model sees: notice first (when cut), then the kept tail."""
        return f"{self.notice(saved)}\n{self.text}" if self.truncated else self.text


def tail_truncate(
    raw: str, max_bytes: int, max_lines: int, skipped_lines: int = 0, head_cut: bool = False
) -> TailOutput:
    """Clean `raw` and keep its last `max_lines` lines within `max_bytes` (UTF-8).

    `skipped_lines` counts lines already dropped before `raw` and `head_cut` says whether
    anything was (both set by a streaming collector).
    """
    text = clean_output(raw)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    total = skipped_lines + len(lines)
    kept = lines[-max_lines:] if len(lines) > max_lines else lines
    size = sum(len(line.encode("utf-8")) + 1 for line in kept)
    start = 0
    while size > max_bytes and start < len(kept) - 1:
        size -= len(kept[start].encode("utf-8")) + 1
        start += 1
    kept = kept[start:]
    partial_line = False
    if kept and size > max_bytes:  # one line longer than the whole budget: keep its tail
        tail = kept[-1].encode("utf-8")[-max_bytes:].decode("utf-8", errors="ignore")
        kept[-1] = tail
        partial_line = True
    truncated = head_cut or skipped_lines > 0 or len(kept) < len(lines) or partial_line
    return TailOutput(
        text="\n".join(kept),
        total_lines=total,
        first_shown=total - len(kept) + 1,
        truncated=truncated,
    )


class TailCollector:
    """Collects a byte stream keeping only a bounded tail, counting the lines it drops."""

    def __init__(self, keep_bytes: int) -> None:
        self._keep = keep_bytes
        self._buffer = bytearray()
        self.dropped_lines = 0
        self.total_bytes = 0
        self.head_cut = False

    def feed(self, chunk: bytes) -> None:
        """Append a chunk, dropping whole lines from the head once over the budget."""
        self.total_bytes += len(chunk)
        self._buffer += chunk
        excess = len(self._buffer) - self._keep
        if excess <= 0:
            return
        cut = self._buffer.find(b"\n", excess)
        if cut == -1:  # no line break in the kept part: cut mid-line
            cut = excess - 1
        self.dropped_lines += self._buffer.count(b"\n", 0, cut + 1)
        self.head_cut = True
        del self._buffer[: cut + 1]

    def result(self, max_bytes: int, max_lines: int) -> TailOutput:
        """Decode (undecodable bytes replaced) and tail-truncate what was kept."""
        text = self._buffer.decode("utf-8", errors="replace")
        return tail_truncate(
            text, max_bytes, max_lines, skipped_lines=self.dropped_lines, head_cut=self.head_cut
        )
