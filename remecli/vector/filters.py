"""Filters and sort keys shared by every store: `{"field": value}` equality, `{"field": [lo, hi]}`
inclusive ranges (either end may be None). A field is a column (see `node.COLUMNS`) or a
metadata key; `metadata.<key>` names a metadata key explicitly (also one that shadows a column).
Stores render conditions with bound parameters only, so any key or value is safe."""

from __future__ import annotations

from dataclasses import dataclass

from remecli.vector.node import COLUMNS, TIME_FIELDS, normalize_time
from remecli.vector.values import Filters, Scalar

_META_PREFIX = "metadata."


@dataclass(frozen=True)
class FieldRef:
    """A column name or a metadata key."""

    name: str
    is_metadata: bool


@dataclass(frozen=True)
class Condition:
    """`field == value`, or `lo <= field <= hi` when `is_range` (None = open end)."""

    field: FieldRef
    is_range: bool
    value: Scalar = None
    lo: Scalar = None
    hi: Scalar = None


def field_ref(name: str) -> FieldRef:
    """Resolve a filter or sort key."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a filter or sort key must be a non-empty string, got {name!r}")
    if name.startswith(_META_PREFIX) and len(name) > len(_META_PREFIX):
        return FieldRef(name[len(_META_PREFIX) :], True)
    return FieldRef(name, name not in COLUMNS)


def _scalar(value: object, where: str) -> Scalar:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise ValueError(f"filter {where!r}: values must be text, numbers or booleans, got {value!r}")


def compile_filters(filters: Filters | None) -> list[Condition]:
    """Turn a filter dict into conditions (time columns normalized to sortable text)."""
    conditions: list[Condition] = []
    for key, value in (filters or {}).items():
        ref = field_ref(key)
        is_time = not ref.is_metadata and ref.name in TIME_FIELDS
        if isinstance(value, list | tuple):
            if len(value) != 2:
                raise ValueError(f"filter {key!r}: a range is [low, high], got {value!r}")
            lo, hi = (_scalar(v, key) for v in value)
            if is_time:
                lo, hi = normalize_time(lo), normalize_time(hi, end_of_day=True)
            conditions.append(Condition(ref, True, lo=lo, hi=hi))
        else:
            value = _scalar(value, key)
            if is_time:
                value = normalize_time(value)
            conditions.append(Condition(ref, False, value=value))
    return conditions


def target_of(conditions: list[Condition]) -> tuple[Scalar, Scalar]:
    """The (memory_type, memory_target) equality conditions, if present (None if not)."""
    found: dict[str, Scalar] = {"memory_type": None, "memory_target": None}
    for cond in conditions:
        if not cond.field.is_metadata and not cond.is_range and cond.field.name in found:
            found[cond.field.name] = cond.value
    return found["memory_type"], found["memory_target"]
