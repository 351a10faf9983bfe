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

FULL_OUTPUT_PREFIX = "[Full output saved to: "
_REFERENCE = re.compile(re.escape(FULL_OUTPUT_PREFIX) + r"(?P<path>[^\]\n]+)\]")
SPOOL_SUFFIX = ".full.txt"


class FullOutputSpool:
    """Writes a byte stream to a file, keeping the first `max_bytes` and counting the rest."""

    def __init__(self, folder: Path, max_bytes: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{uuid.uuid4().hex}{SPOOL_SUFFIX}"
        self.max_bytes = max_bytes
        self.kept = 0
        self.total = 0
        self._file = open(self.path, "wb")  # noqa: SIM115 (closed in finish)

    def feed(self, chunk: bytes) -> None:
        """Add output; past the cap it is only counted."""
        self.total += len(chunk)
        room = self.max_bytes - self.kept
        if room > 0:
            self._file.write(chunk[:room])
            self.kept += min(room, len(chunk))

    @property
    def capped(self) -> bool:
        """True when some output went past the cap."""
        return self.total > self.kept

    def finish(self, keep: bool) -> Path | None:
        """Close the file; keep it (return its path) or delete it."""
        self._file.close()
        if keep:
            return self.path
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        return None

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
