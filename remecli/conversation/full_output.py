"""The full output of a command, kept on disk up to a size cap, for when its tail is cut.

`bash` and `execute_code` show the model only the last lines of a long output; everything
(up to `tools.full_output_max_bytes`) goes to `<working_dir>/tool_result/<id>.full.txt` and the
result names that file with `FULL_OUTPUT_PREFIX`. The tool-result store uses that file as the
"full content" when it offloads the result, so the offloaded file holds the real output.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from pathlib import Path

from remecli.config.privacy import private_dirs
from remecli.notes.redact import redact_text

FULL_OUTPUT_PREFIX = "[Full output saved to: "
_REFERENCE = re.compile(re.escape(FULL_OUTPUT_PREFIX) + r"(?P<path>[^\]\n]+)\]")
SPOOL_SUFFIX = ".full.txt"


class FullOutputSpool:
    """Collects a byte stream, keeping the first `max_bytes` and counting the rest; the kept
    part reaches the file only when it is kept, with its secrets redacted (never the raw bytes).
    """

    def __init__(self, folder: Path, max_bytes: int) -> None:
        private_dirs(folder)
        self.path = folder / f"{uuid.uuid4().hex}{SPOOL_SUFFIX}"
        self.max_bytes = max_bytes
        self.kept = 0
        self.total = 0
        self._data = bytearray()

    def feed(self, chunk: bytes) -> None:
        """Add output; past the cap it is only counted."""
        self.total += len(chunk)
        room = self.max_bytes - self.kept
        if room > 0:
            self._data += chunk[:room]
            self.kept += min(room, len(chunk))

    @property
    def capped(self) -> bool:
        """True when some output went past the cap."""
        return self.total > self.kept

    def finish(self, keep: bool) -> Path | None:
        """Write the kept output (redacted, 0600) and return its path, or drop it (None; also
        when the file cannot be written)."""
        data, self._data = bytes(self._data), bytearray()
        if not keep:
            return None
        text = redact_text(data.decode("utf-8", errors="surrogateescape"))
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(text.encode("utf-8", errors="surrogateescape"))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            return None
        return self.path

    def reference(self) -> str:
        """The line telling the model (and the store) where the full output is."""
        cap = f", the first {self.kept} bytes of {self.total} kept" if self.capped else ""
        return f"{FULL_OUTPUT_PREFIX}{self.path}] ({self.total} bytes{cap}; `read` it by pages)"


def full_output_file(text: str) -> Path | None:
    """The full-output file a tool result names, if it still exists."""
    found = _REFERENCE.search(text)
    if not found:
        return None
    path = Path(found.group("path"))
    return path if path.is_file() else None
