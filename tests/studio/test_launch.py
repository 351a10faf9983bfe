"""`remecli studio` as a user runs it: it starts a server when none runs and prints a login
link that works, and it refuses a server that serves another working dir."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from tests.cli_process import run_remecli
from tests.studio.conftest import Studio, seed
from tests.surfaces.helpers import surface_settings

LINK = re.compile(r"(http://127\.0\.0\.1:\d+)/studio/login\?ticket=\S+")


def test_studio_starts_a_server_and_prints_a_working_login_link(tmp_path: Path, fake_llm) -> None:
    root = tmp_path / ".reme"
    seed(root)
    settings = surface_settings(root, fake_llm.base_url)
    process = subprocess.Popen(
        [sys.executable, "-m", "remecli", "studio", "--no-browser", "--port", "0", *settings],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    found: list[str] = []
    seen = threading.Event()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if LINK.search(line):
                found.append(LINK.search(line).group(0))  # type: ignore[union-attr]
                seen.set()

    threading.Thread(target=pump, daemon=True).start()
    try:
        assert seen.wait(90), "no login link printed"
        link = found[0]
        base = LINK.match(link).group(1)  # type: ignore[union-attr]
        login = httpx.get(link)
        assert login.status_code == 303 and login.headers["location"] == "/"
        cookie = login.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        home = httpx.get(f"{base}/", cookies=login.cookies)
        assert 'name="csrf-token"' in home.text and "/static/js/main.js" in home.text
        assert httpx.get(link).status_code == 403  # one time only
        assert (
            httpx.get(f"{base}/static/js/main.js")
            .headers["content-type"]
            .startswith("text/javascript")
        )
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0


def test_studio_refuses_a_server_of_another_working_dir(studio: Studio, tmp_path: Path) -> None:
    other = tmp_path / "other"
    seed(other)
    port = studio.url.rsplit(":", 1)[1]
    done = run_remecli(
        "studio", "--no-browser", "--port", port, f"working_dir={other}", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "another token" in done.stderr and "--port" in done.stderr
    assert "ticket=" not in done.stdout
