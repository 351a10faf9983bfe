"""A tool as remecli describes it to a model: name, description, JSON schema, the function.

`ToolSpec.from_function` reads all of it from a typed function (as simonw/llm's
`Tool.function` does): the name from the function, the description from the docstring's
text before `Args:`, each parameter's schema from its annotation (pydantic) and its
description from the docstring's `Args:` entry. The agentscope adapter turns a spec into the
runtime's tool (`remecli.llm.agentscope_adapter.runtime_tool`).
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, create_model

_SKIPPED = {"self", "cls", "_agent_state"}  # bound receivers; the runtime's injected state
_SECTIONS = re.compile(r"^(Args|Arguments|Parameters|Returns|Yields|Raises|Examples?|Notes?):\s*$")
_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(?:\(.*?\))?\s*:\s*(.*)$")


@dataclass(frozen=True)
class ToolSpec:
    """One tool: what the model is told about it and what runs when it is called.

    `read_only` and `concurrency_safe` tell the runtime how it may schedule the call;
    `allowed`, when set, is why the call needs no approval (e.g. "memory files only").
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    function: Callable[..., Any]
    read_only: bool = False
    concurrency_safe: bool = True
    allowed: str | None = None

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        concurrency_safe: bool = True,
        allowed: str | None = None,
    ) -> ToolSpec:
        """The spec of a typed, documented function (see the module docstring); a
        `functools.partial` is described by the function it binds, without the bound arguments."""
        named = _unbound(function)
        summary, documented = parse_docstring(inspect.getdoc(named) or "")
        return cls(
            name=name or str(getattr(named, "__name__", type(named).__name__)),
            description=description if description is not None else summary,
            parameters=input_schema(function, documented),
            function=function,
            read_only=read_only,
            concurrency_safe=concurrency_safe,
            allowed=allowed,
        )


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """(the text before the first section, {parameter: description} from `Args:`); `doc`
    as written or already cleaned (`inspect.getdoc`)."""
    summary: list[str] = []
    params: dict[str, list[str]] = {}
    section: str | None = None
    current: str | None = None
    for line in inspect.cleandoc(doc).splitlines():
        header = _SECTIONS.match(line.strip())
        if header and not line.startswith(" "):
            section, current = header.group(1), None
            continue
        if section is None:
            summary.append(line)
        elif section in ("Args", "Arguments", "Parameters") and line.strip():
            entry = _ENTRY.match(line.strip())
            if entry and _indent(line) <= 4:
                current = entry.group(1).lstrip("*")
                params[current] = [entry.group(2)]
            elif current is not None:
                params[current].append(line.strip())
    described = {key: "\n".join(part for part in text if part) for key, text in params.items()}
    head, _, rest = "\n".join(summary).strip().partition("\n\n")  # one line between, as
    return (f"{head}\n{rest.strip()}" if rest.strip() else head), described  # agentscope


def _unbound(function: Callable[..., Any]) -> Callable[..., Any]:
    while isinstance(function, functools.partial):
        function = function.func
    return function


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def input_schema(function: Callable[..., Any], described: Mapping[str, str]) -> dict[str, Any]:
    """The JSON schema of `function`'s parameters (titles removed: noise to a model)."""
    try:
        hints = typing.get_type_hints(_unbound(function), include_extras=True)
    except (NameError, TypeError):
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(function).parameters.items():
        if pname in _SKIPPED or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, Any if param.annotation is param.empty else param.annotation)
        default = ... if param.default is param.empty else param.default
        info = described.get(pname)
        field = Field(default=default) if info is None else Field(default=default, description=info)
        fields[pname] = (annotation, field)
    model = create_model(f"{getattr(_unbound(function), '__name__', 'tool')}_params", **fields)
    schema: dict[str, Any] = _without_titles(model.model_json_schema())
    return schema


def _without_titles(schema: Any) -> Any:
    """`schema` with pydantic's generated `title`s dropped, at every level."""
    if isinstance(schema, dict):
        return {
            key: _without_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_without_titles(item) for item in schema]
    return schema
