"""Whose memory a call names: the user_name / task_name / tool_name arguments as (memory type,
target) pairs, and the error of an unknown memory id."""

from __future__ import annotations

from collections.abc import Mapping

from remecli.vector.node import PERSONAL, PROCEDURAL, TOOL

Names = str | list[str] | None


class MemoryNotFoundError(KeyError):
    """No memory has this id."""

    def __str__(self) -> str:
        return f"no memory with id {self.args[0]!r}; list ids with list_memory()"


def scopes(user_name: Names, task_name: Names, tool_name: Names) -> list[tuple[str, str]]:
    """(memory_type, target) pairs named by the user_name / task_name / tool_name arguments."""
    pairs = []
    for kind, names in ((PERSONAL, user_name), (PROCEDURAL, task_name), (TOOL, tool_name)):
        for name in [names] if isinstance(names, str) else list(names or []):
            if not str(name).strip():
                continue  # the reference's default is "": not a target
            pairs.append((kind, str(name)))
    return pairs


def check_version(version: str) -> None:
    if version != "default":
        raise NotImplementedError(f"version={version} is not supported")


def no_extra_keywords(method: str, extra: Mapping[str, object]) -> None:
    if extra:
        raise TypeError(
            f"{method}() got unexpected keyword argument(s): {', '.join(sorted(extra))}"
        )
