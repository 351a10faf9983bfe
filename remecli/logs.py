"""Log file setup: details go to `<working_dir>/logs/remecli.log`, never to the screen."""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

from remecli.config.locations import Locations
from remecli.config.settings import Settings


def setup_logging(settings: Settings, cwd: Path | None = None) -> Path:
    """Send all logging to a rotating file under the working dir; return its path."""
    path = Locations.from_settings(settings, cwd).log_file
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    path.chmod(0o600)  # logs quote conversations: readable by the user only
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def route_agentscope_logs() -> None:
    """agentscope logs to stderr on import ("as" logger); send it to our log file instead,
    so nothing is printed over the TUI or into a one-shot answer."""
    agentscope_logger = logging.getLogger("as")
    agentscope_logger.handlers.clear()
    agentscope_logger.propagate = True
