"""Shared pytest fixtures. The fake OpenAI server: see tests/fakes/fake_openai.py."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
if str(PROJECT_ROOT) not in sys.path:  # so `tests.fakes` imports under plain `pytest` too
    sys.path.append(str(PROJECT_ROOT))

from tests.fakes import FakeOpenAIServer  # noqa: E402
from tests.fakes.fake_tavily import tavily  # noqa: E402,F401  (fixture: fake Tavily endpoint)
from tests.fakes.memory_model import MemoryAwareModel  # noqa: E402


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """A started scripted fake OpenAI server (``.base_url``, ``.add_text(...)``, ...)."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def memory_model(fake_llm: FakeOpenAIServer) -> MemoryAwareModel:
    """The fake server answers the summarizer (writes the daily file) and the agent ("ok")."""
    model = MemoryAwareModel()
    fake_llm.set_fallback(model)
    return model


@pytest.fixture(scope="session")
def xdg_homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for every test's private XDG folders (made in it with `mkdtemp`, O(1): a
    `tmp_path_factory.mktemp` per test lists the whole, growing base temp folder each time)."""
    return tmp_path_factory.mktemp("xdg")


@pytest.fixture(autouse=True)
def private_memory_home(xdg_homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory home (`$XDG_DATA_HOME/remecli`) of every test, and of the processes it
    starts, is a new temporary folder: no test reads or writes the user's own memory (nor puts
    a full disk's conversation aside in the user's `$XDG_STATE_HOME`)."""
    monkeypatch.setenv("XDG_DATA_HOME", tempfile.mkdtemp(prefix="data-", dir=xdg_homes))
    monkeypatch.setenv("XDG_STATE_HOME", tempfile.mkdtemp(prefix="state-", dir=xdg_homes))


@pytest.fixture(autouse=True)
def no_backoff_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries happen at once in tests: the backoff delay is zeroed (the count still matters)."""
    from remecli.llm import retry

    monkeypatch.setattr(retry, "backoff_delay", lambda attempt, base=0.5, cap=8.0: 0.0)
