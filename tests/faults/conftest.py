"""Fault-injection fixtures: the Assistant factory of the agent tests, and the faulty server."""

from __future__ import annotations

from tests.agent.conftest import assistant_factory  # noqa: F401  (fixture)
