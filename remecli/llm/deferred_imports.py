"""Packages the agent runtime imports at its top level but an answer does not use: their code
runs at their first real use instead of at import.

agentscope 2.0.11 (and the HTTP transport openai runs on) import these at their package top
level; an answer through an OpenAI-compatible model never touches them. `install()` (called by
`remecli/__main__.py`, so before any agentscope import, and only in the program) puts a finder first on
`sys.meta_path` that imports each name in `DEFERRED` as a deferred module: in `sys.modules` at
once, its code run, under a lock, at the first read of any attribute the import system did not
set itself. `import numpy`, said again anywhere, does not run it; `from numpy import x`,
`numpy.x` and importing a submodule (`numpy.linalg`) do. A package already imported is left as
it is. benchmarks/oneshot.py measures what this saves in `remecli -p`.

Not `importlib.util.LazyLoader`: on Python 3.11 every later `import numpy` statement reads
`numpy.__spec__` (to see whether it is still initialising), which runs a LazyLoader module, so
the second import anywhere ran it; and its modules are not safe to first use from two threads.

A package that fails while it runs raises at that first use (not at the import statement), and
is taken out of `sys.modules`, as a failed import is.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

DEFERRED = frozenset(
    {
        "numpy",  # agentscope.realtime (voice) and agentscope.embedding; remecli's vector search
        "requests",  # agentscope's formatters, to download an image given by URL
        "trio",  # httpcore2 (openai's transport), for trio event loops; remecli runs on asyncio
    }
)

# Set by the import system before a module's code runs: read without running it.
_PRESET = frozenset({"__name__", "__spec__", "__loader__", "__file__", "__cached__", "__package__"})


class _Pending:
    """What a deferred module needs to run: its real loader, a lock, and its namespace as the
    import system left it (what was set on the module after that is kept when it runs)."""

    def __init__(self, loader: importlib.abc.Loader, namespace: dict[str, Any]) -> None:
        self.loader = loader
        self.lock = threading.RLock()
        self.preset = dict(namespace)
        self.running = False


class DeferredModule(types.ModuleType):
    """A module whose code has not run yet; it becomes a plain module when it has."""

    def __getattribute__(self, name: str) -> Any:
        if name in _PRESET:
            return types.ModuleType.__getattribute__(self, name)
        _run(self)
        return types.ModuleType.__getattribute__(self, name)


def _run(module: types.ModuleType) -> None:
    """Run a deferred module's code once; other threads wait until it has run."""
    namespace: dict[str, Any] = types.ModuleType.__getattribute__(module, "__dict__")
    spec = namespace["__spec__"]
    pending: _Pending | None = spec.loader_state
    if pending is None:
        return
    with pending.lock:
        if pending.running or spec.loader_state is None:
            return  # it has run, or it is running: its own code or a submodule reads it
        pending.running = True
        set_since = {
            key: value
            for key, value in namespace.items()
            if key not in pending.preset or pending.preset[key] is not value
        }
        try:
            pending.loader.exec_module(module)
        except BaseException:
            if sys.modules.get(spec.name) is module:
                del sys.modules[spec.name]
            raise
        finally:
            spec.loader_state = None
            if type(module) is DeferredModule:  # else it set a class of its own (trio does)
                object.__setattr__(module, "__class__", types.ModuleType)
        namespace.update(set_since)


class _DeferringLoader(importlib.abc.Loader):
    """Creates the module as its real loader would, and leaves its code for later."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        spec = module.__spec__
        assert spec is not None
        spec.loader = self.loader
        module.__loader__ = self.loader
        spec.loader_state = _Pending(self.loader, dict(vars(module)))
        module.__class__ = DeferredModule


class DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds each name in `names` with the finders after it, and defers its code."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is None:
                continue
            if spec.origin is None or not hasattr(spec.loader, "exec_module"):
                return None  # a namespace package or an old-style loader: imported as usual
            spec.loader = _DeferringLoader(spec.loader)  # type: ignore[arg-type]
            return spec
        return None


def install(names: frozenset[str] = DEFERRED) -> None:
    """Defer `names` from now on in this process (once; later calls do nothing)."""
    if not any(isinstance(finder, DeferringFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferringFinder(names))


def has_run(name: str) -> bool:
    """Whether module `name` is imported and its code has run (False while deferred)."""
    module = sys.modules.get(name)
    return module is not None and type(module) is not DeferredModule
