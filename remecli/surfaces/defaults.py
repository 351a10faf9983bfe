"""Defaults the surfaces share with the command line, importable without loading any surface."""

from __future__ import annotations

DEFAULT_MAX_BODY_BYTES = 1_000_000
