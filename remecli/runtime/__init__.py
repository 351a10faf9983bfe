"""The composition root: `build_runtime(settings, mode) -> Runtime`, its typed events, and the
seed's `FileMemory` API as a facade over a runtime."""

from remecli.runtime.build import build_runtime
from remecli.runtime.events import (
    DreamDone,
    EventBus,
    RuntimeEvent,
    SummaryDone,
    SummaryTasksChanged,
)
from remecli.runtime.file_memory import FileMemory
from remecli.runtime.modes import Mode, StartPlan
from remecli.runtime.runtime import Runtime

__all__ = [
    "DreamDone",
    "EventBus",
    "FileMemory",
    "Mode",
    "Runtime",
    "RuntimeEvent",
    "StartPlan",
    "SummaryDone",
    "SummaryTasksChanged",
    "build_runtime",
]
