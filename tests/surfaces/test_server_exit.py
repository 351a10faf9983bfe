"""A server started on a memory with no dream due loads no agent runtime (the dream runner
pulled it in at every start, ~2.6 CPU-s), and once stopped it ends its process without tearing
the interpreter down (that took ~2.3 s after Ctrl+C): its at-exit handlers still run."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_process import FREED_AT_TEARDOWN
from tests.fakes import FakeOpenAIServer
from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy

PROBE = (
    FREED_AT_TEARDOWN
    + r"""
import atexit, json, sys

out = sys.argv.pop(1)


def at_exit():
    with open(out + ".atexit", "w") as handle:
        json.dump(sorted(sys.modules), handle)


atexit.register(at_exit)
marker = FreedAtTeardown(out + ".teardown")
sys.argv = ["remecli", *sys.argv[1:]]
from remecli.__main__ import main

sys.exit(main())
"""
)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    """A probed `remecli serve` (default dream settings, no card yet) started, then stopped
    with SIGTERM: the probe's output prefix and the exit code."""
    out = tmp_path_factory.mktemp("probe") / "probe"
    server = FakeOpenAIServer().start()
    try:
        with pytest.MonkeyPatch.context() as env:  # the autouse private memory home is per test
            env.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
            settings = surface_settings(out.parent / ".reme", server.base_url)
            program = [sys.executable, "-c", PROBE, str(out)]
            surface = start_surface(["serve", "--port", "0", *settings], program=program)
            wait_until_healthy(surface.url)
            code = surface.stop(signal.SIGTERM)
        assert code == 0, "".join(surface.stderr)
        yield out, code
    finally:
        server.stop()


def test_a_stopped_server_exits_without_teardown_after_its_at_exit_handlers(
    stopped: tuple[Path, int],
) -> None:
    out, _ = stopped
    assert Path(f"{out}.atexit").exists(), "the at-exit handlers ran"
    assert not Path(f"{out}.teardown").exists(), "the interpreter was torn down"


def test_a_server_with_no_dream_due_loads_no_agent_runtime(stopped: tuple[Path, int]) -> None:
    out, _ = stopped
    loaded = set(json.loads(Path(f"{out}.atexit").read_text(encoding="utf-8")))
    assert "remecli.knowledge.dreaming" in loaded  # the runtime asked whether a dream is due
    assert "agentscope.agent" not in loaded and "remecli.knowledge.dream.runner" not in loaded
