"""The base of every settings model: unknown keys refused, values never changed in place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict

_SCHEMES = ("http://", "https://")


class SettingsSection(BaseModel, frozen=True):
    """A frozen settings model: a change is a validated copy (`with_changes`), never an
    assignment, so every holder of a settings object sees the values it was given.

    Subclasses repeat `frozen=True` in their class line: that is what lets mypy refuse an
    assignment too (pydantic alone refuses it only at run time)."""

    model_config = ConfigDict(extra="forbid")

    def with_changes(self, changes: Mapping[str, object]) -> Self:
        """A validated copy with `changes` applied; dotted keys reach into sections
        (`{"language": "zh", "memory.retention_days": 3}`). Raises pydantic's ValidationError
        (a ValueError) naming the key when a value is not allowed."""
        data = self.model_dump()
        for dotted, value in changes.items():
            *sections, key = dotted.split(".")
            node: dict[str, Any] = data
            for depth, name in enumerate(sections):
                child = node.get(name)
                if not isinstance(child, dict):
                    where = ".".join(sections[: depth + 1])
                    raise ValueError(f"'{where}' is not a settings section (in '{dotted}')")
                node = child
            node[key] = value
        return self.model_validate(data)


def checked_endpoint(value: str, example_path: str = "/v1") -> str:
    """An OpenAI-compatible endpoint's URL, refused unless it starts with http:// or https://
    (`localhost:8000` otherwise fails only when the first request cannot be sent). The error
    says exactly what to write; empty stays empty (not configured)."""
    text = value.strip()
    if not text or text.lower().startswith(_SCHEMES):
        return text
    host = text.split("://", 1)[-1].rstrip("/")
    path = "" if "/" in host else example_path
    raise ValueError(
        f"needs http:// or https:// in front: write http://{host}{path} (https:// for a "
        "remote server)"
    )
