"""A store's options as an opener reads them: a `default_vector_store_config` section holds what a
caller or a YAML file gave (text, numbers, booleans), so each value is converted where it is read
and a value of the wrong kind is a VectorStoreError that names its key."""

from __future__ import annotations

from collections.abc import Mapping

from remecli.vector.stores.base import VectorStoreError


def whole_number(value: object, key: str) -> int:
    """`value` as an int (a number, or text of one)."""
    if isinstance(value, int | float | str):
        try:
            return int(value)
        except ValueError:
            pass
    raise VectorStoreError(f"{key} must be a whole number, not {value!r}")


def number(value: object, key: str) -> float:
    """`value` as a float (a number, or text of one)."""
    if isinstance(value, int | float | str):
        try:
            return float(value)
        except ValueError:
            pass
    raise VectorStoreError(f"{key} must be a number, not {value!r}")


def optional_text(value: object) -> str | None:
    """`value` as text, None when it is missing."""
    return None if value is None else str(value)


def text_pairs(value: object, key: str) -> dict[str, str] | None:
    """A mapping of text to text (HTTP headers), None when it is missing."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise VectorStoreError(f"{key} must be a mapping of names to values, not {value!r}")
    return {str(name): str(item) for name, item in value.items()}


def no_extra(backend: str, options: Mapping[str, object]) -> None:
    """Refuse the options no opener took out."""
    if options:
        raise VectorStoreError(
            f"unknown option(s) for the {backend} vector store: {', '.join(sorted(options))}"
        )
