"""Building tool results and checking arguments, shared by every tool."""

from __future__ import annotations

import math
from typing import Any, TypeVar

from remecli.llm.message import ToolOutput

_N = TypeVar("_N", int, float)

# Tools return remecli's `ToolOutput`; only `remecli.llm.function_tool` turns it into the
# runtime's result (agentscope's ToolChunk).


class ToolArgumentError(ValueError):
    """An argument the model can fix; its message is returned to the model as an error."""


def ok(text: str, **metadata: Any) -> ToolOutput:
    """A successful result holding `text`."""
    return ToolOutput(text, "success", metadata=metadata)


def error(text: str, **metadata: Any) -> ToolOutput:
    """An error result the model can act on (state `error`)."""
    return ToolOutput(text, "error", metadata=metadata)


def as_int(value: Any, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Coerce an integer argument (5.0 and "5" are accepted); raise ToolArgumentError."""
    number = _as_number(value, name)
    if number != int(number):
        raise ToolArgumentError(f"Argument `{name}` must be a whole number, got {value!r}.")
    return _in_range(int(number), name, minimum, maximum)


def as_float(
    value: Any, name: str, minimum: float | None = None, maximum: float | None = None
) -> float:
    """Coerce a number argument (ints and numeric strings accepted); raise ToolArgumentError."""
    return _in_range(float(_as_number(value, name)), name, minimum, maximum)


def as_text(value: Any, name: str) -> str:
    """Accept a string argument; numbers are turned into text, anything else is refused."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ToolArgumentError(f"Argument `{name}` must be a string, got {type(value).__name__}.")


def _as_number(value: Any, name: str) -> float:
    if isinstance(value, bool):
        raise ToolArgumentError(f"Argument `{name}` must be a number, got {value!r}.")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise ToolArgumentError(f"Argument `{name}` must be a number, got {value!r}.") from None
    else:
        raise ToolArgumentError(f"Argument `{name}` must be a number, got {value!r}.")
    if not math.isfinite(number):
        raise ToolArgumentError(f"Argument `{name}` must be a finite number, got {value!r}.")
    return number


def _in_range(number: _N, name: str, minimum: _N | None, maximum: _N | None) -> _N:
    if minimum is not None and number < minimum:
        raise ToolArgumentError(f"Argument `{name}` must be at least {minimum}, got {number}.")
    if maximum is not None and number > maximum:
        raise ToolArgumentError(f"Argument `{name}` must be at most {maximum}, got {number}.")
    return number
