"""Settings: the typed model, the one loader and its errors. The names load on first use, so a
submodule that needs no pydantic (`sources`, `locations`, `errors`) is imported without it: the
TUI's first frame is drawn before the settings models are built."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from remecli.config.errors import ConfigError
    from remecli.config.loader import ENV_VARS, load_settings
    from remecli.config.settings import LLMSettings, MemorySettings, Settings, ToolSettings

__all__ = [
    "ConfigError",
    "ENV_VARS",
    "LLMSettings",
    "MemorySettings",
    "Settings",
    "ToolSettings",
    "load_settings",
]
_HOME = {
    "ConfigError": "errors",
    "ENV_VARS": "loader",
    "load_settings": "loader",
    "LLMSettings": "settings",
    "MemorySettings": "settings",
    "Settings": "settings",
    "ToolSettings": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"remecli.config.{_HOME[name]}"), name)
