"""Settings: the typed model, the one loader and its errors."""

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
