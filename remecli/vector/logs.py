"""ReMe's own log output, as the reference's `log_to_console` / `log_to_file` ask: the
`remecli.vector` loggers to stderr and/or `<working_dir>/logs/reme.log` (0600) while started."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from remecli.config.privacy import private_dirs

LOGGER = "remecli.vector"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class VectorLogs:
    """The handlers one ReMe adds on `open()` and removes on `close()`."""

    def __init__(self, working_dir: Path, *, to_console: bool, to_file: bool) -> None:
        self.path = Path(working_dir) / "logs" / "reme.log"
        self.to_console = to_console
        self.to_file = to_file
        self._handlers: list[logging.Handler] = []
        self._level: int | None = None

    def open(self) -> None:
        """Start writing (once)."""
        if self._handlers or not (self.to_console or self.to_file):
            return
        if self.to_console:
            self._handlers.append(logging.StreamHandler(sys.stderr))
        if self.to_file:
            private_dirs(self.path.parent)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.close(fd)
            self._handlers.append(logging.FileHandler(self.path, encoding="utf-8"))
        logger = logging.getLogger(LOGGER)
        self._level = logger.level
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)
        for handler in self._handlers:
            handler.setFormatter(logging.Formatter(FORMAT))
            logger.addHandler(handler)

    def close(self) -> None:
        """Stop writing."""
        logger = logging.getLogger(LOGGER)
        for handler in self._handlers:
            logger.removeHandler(handler)
            handler.close()
        self._handlers.clear()
        if self._level is not None:
            logger.setLevel(self._level)
            self._level = None
