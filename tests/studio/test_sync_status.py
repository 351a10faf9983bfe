"""Studio's Health page shows the last sync over git (or how to set it up) and its conflicts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.cli_process import run_remecli
from tests.studio.conftest import Studio, logged_in


def test_health_shows_the_last_sync_and_how_to_set_it_up(
    page: Page, studio: Studio, tmp_path: Path
) -> None:
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/health")
    expect(page.locator("dd[data-field='sync']")).to_contain_text("remecli sync init REMOTE")
    remote = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    done = run_remecli(
        "sync", "init", str(remote), *studio.settings, "sync.machine=laptop", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    page.reload()
    expect(page.locator("dd[data-field='sync']")).to_contain_text(f"synced with {remote}")
