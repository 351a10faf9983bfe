"""Fault-injection fixtures: the Assistant factory of the agent tests, the job runner of the
resource tests, and the faulty server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agent.conftest import assistant_factory  # noqa: F401  (fixture)
from tests.fakes.faulty_openai import FaultyOpenAIServer
from tests.resources.conftest import runner  # noqa: F401  (fixture: a started job runner)


@pytest.fixture
def fake_llm() -> Iterator[FaultyOpenAIServer]:
    """The fault-injecting fake server (overrides the plain one for the fault tests)."""
    server = FaultyOpenAIServer(plain_only=True).start()
    try:
        yield server
    finally:
        server.stop()
