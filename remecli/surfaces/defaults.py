"""Defaults the surfaces share with the command line, importable without loading any surface."""

from __future__ import annotations

DEFAULT_MAX_BODY_BYTES = 1_000_000
DEFAULT_SERVE_PORT = 8765  # remecli serve, and where remecli studio looks first
