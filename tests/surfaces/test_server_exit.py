"""A stopped server ends its process without tearing the interpreter down (the teardown of
the web stack it loaded took ~2.3 s after Ctrl+C): its at-exit handlers still run."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from tests.surfaces.helpers import start_surface, surface_settings, wait_until_healthy

PROBE = r"""
import atexit, sys

out = sys.argv.pop(1)


class FreedAtTeardown:
    def __init__(self, path):
        self.path, self.opener = path, open  # kept: module globals are gone by then

    def __del__(self):  # runs when the interpreter frees __main__'s globals at exit
        self.opener(self.path, "w").close()


atexit.register(lambda: open(out + ".atexit", "w").close())
marker = FreedAtTeardown(out + ".teardown")
sys.argv = ["remecli", *sys.argv[1:]]
from remecli.__main__ import main

sys.exit(main())
"""


def test_a_stopped_server_exits_without_teardown_after_its_at_exit_handlers(
    tmp_path: Path, fake_llm
) -> None:
    out = tmp_path / "probe"
    settings = surface_settings(tmp_path / ".reme", fake_llm.base_url)
    surface = start_surface(
        ["serve", "--port", "0", *settings], program=[sys.executable, "-c", PROBE, str(out)]
    )
    wait_until_healthy(surface.url)
    assert surface.stop(signal.SIGTERM) == 0, "".join(surface.stderr)
    assert Path(f"{out}.atexit").exists(), "the at-exit handlers ran"
    assert not Path(f"{out}.teardown").exists(), "the interpreter was torn down"
