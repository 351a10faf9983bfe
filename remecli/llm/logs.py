"""Where the agent runtime's own logger writes: into remecli's log file, never over the screen."""

from __future__ import annotations

import importlib
import logging


def route_runtime_logs() -> None:
    """agentscope's "as" logger prints to stderr ("WARNING | _base:__call__ …"); send it to our
    log file instead, so nothing is printed over the TUI or into a one-shot answer.

    agentscope installs its stderr handler when `agentscope._logging` is first imported, so it
    is imported here first: routing before that import would be undone by it."""
    importlib.import_module("agentscope._logging")
    agentscope_logger = logging.getLogger("as")
    agentscope_logger.handlers.clear()
    agentscope_logger.propagate = True
