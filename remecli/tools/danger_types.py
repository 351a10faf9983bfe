"""The result type of the danger classifier."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Danger:
    """A risk found in a call: `kind` groups similar risks, `reason` is for the user."""

    kind: str
    reason: str
