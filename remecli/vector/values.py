"""The value types the vector memory passes around: JSON (what metadata and the engines' records
hold: every store writes metadata as JSON), filter values, stored column values and the times a
caller may give. One place, so a store, the facade and the filters agree on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TypeAlias

JSON: TypeAlias = str | int | float | bool | None | list["JSON"] | dict[str, "JSON"]
# A JSON object: a node's metadata, an engine's record or request body.
JSONObject: TypeAlias = dict[str, JSON]
# Metadata as a caller hands it in (read only, so a dict[str, str] is one too).
MetadataIn: TypeAlias = Mapping[str, JSON]

# A filter's value: equality with a scalar, or an inclusive [low, high] range (None = open end).
Scalar: TypeAlias = str | int | float | bool | None
FilterValue: TypeAlias = Scalar | Sequence[Scalar]
Filters: TypeAlias = Mapping[str, FilterValue]

# A time as a caller may give it (text, a date, a datetime or a POSIX timestamp).
TimeValue: TypeAlias = str | int | float | date | datetime | None

# The column values of a node as a store writes them (`node.COLUMNS`: text, message_time may be
# None) and the new values an update sets (`update_memory`'s changed columns).
ColumnValues: TypeAlias = dict[str, str | None]

# One section of the configuration (`default_vector_store_config`, an `llms:` entry, …) as a
# caller or a YAML file gives it; each consumer reads and checks its own keys.
ConfigSection: TypeAlias = Mapping[str, object]
Settings: TypeAlias = dict[str, object]  # a section as ReMe keeps it (its own copy)

# A bound SQL parameter: passed through to the database driver as it is.
SqlParams: TypeAlias = list[object]
