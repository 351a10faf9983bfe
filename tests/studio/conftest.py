"""Studio in a real browser: headless Chromium from the distribution, driven by Playwright, on a
real `remecli serve` process per test (a tmp working dir, a free port, the fake LLM)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page, Response, sync_playwright

from remecli.surfaces.auth import load_token
from remecli.surfaces.studio.access import login_url
from tests.surfaces.helpers import Surface, start_surface, surface_settings, wait_until_healthy

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
DOCS_SCREENSHOTS = ROOT / "docs" / "studio"
CARD = "memory/2025-01-31/deploy-checklist.md"
DAY = "memory/2025-01-31.md"
WIKI = "digest/wiki/deploy.md"


def seed(root: Path) -> None:
    """MEMORY.md, a day page, a card linked both ways with a wiki note, a transcript."""
    (root / "memory" / "2025-01-31").mkdir(parents=True)
    (root / "digest" / "wiki").mkdir(parents=True)
    (root / "sessions").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY\n\n- The staging host is stg-7; how we ship: [[Deploy checklist]].\n"
        "- What happened that day: [[memory/2025-01-31.md#L3-L4|31 January]].\n"
        "- Not written yet: [[release calendar]].\n",
        encoding="utf-8",
    )
    (root / DAY).write_text(
        "# 2025-01-31\n\nWe deployed with `make ship` to stg-7.\nThe rollback is `make unship`.\n",
        encoding="utf-8",
    )
    (root / CARD).write_text(
        "---\nname: Deploy checklist\ndescription: How we ship to staging\ndate: 2025-01-31\n"
        'tags: [deploy, staging]\nsource_conversation: "[[sessions/s1.jsonl#L1-L2]]"\n---\n'
        "# Deploy checklist\n\n1. Run the tests.\n2. Ship with `make ship` <b>now</b>.\n"
        "3. Check [[Wiki deploy]].\n\n## Rollback\n\nThe zebra command is `make unship`.\n",
        encoding="utf-8",
    )
    (root / WIKI).write_text(
        "---\nname: Wiki deploy\ndescription: Everything about deploying\n---\n# Deploy wiki\n\n"
        "Start from the [[Deploy checklist]].\n\nSources: [[sessions/s1.jsonl#L4-L5]]\n",
        encoding="utf-8",
    )
    (root / "sessions" / "s1.jsonl").write_text(  # a short hand-made form
        '{"role": "user", "content": "how do we deploy?"}\n'
        '{"role": "assistant", "content": "make ship"}\n',
        encoding="utf-8",
    )


def _message(number: int, role: str, text: str) -> str:
    content = [{"type": "text", "text": text}]
    msg = {"id": f"m{number}", "role": role, "name": role, "content": content}
    return json.dumps({"t": "msg", "at": f"2025-01-31T10:0{number}:00", "msg": msg}) + "\n"


def transcript() -> str:
    """A session in the transcript's own format: four messages and a checkpoint (line 3).

    Tests write it once the server runs: a server started on it answered its first request
    only after about 5 s on this loaded machine (its startup work on the transcript)."""
    return (
        _message(1, "user", "how do we deploy?")
        + _message(2, "assistant", "make ship")
        + json.dumps({"t": "checkpoint", "at": "2025-01-31T10:03:00"})
        + "\n"
        + _message(4, "user", "and who reads the staging logs?")
        + _message(5, "assistant", "the on-call person, in the pager channel")
    )


@dataclass
class Studio:
    """A running server, its working dir, and how to log a page in."""

    surface: Surface
    root: Path
    settings: list[str]

    @property
    def url(self) -> str:
        return self.surface.url

    def login_url(self) -> str:
        """A fresh one-time link, from `remecli studio --no-browser` as a user runs it."""
        port = self.url.rsplit(":", 1)[1]
        done = subprocess.run(
            [sys.executable, "-m", "remecli", "studio", "--no-browser", "--port", port]
            + self.settings,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]


@pytest.fixture
def studio(tmp_path: Path, fake_llm) -> Iterator[Studio]:
    root = tmp_path / ".reme"
    seed(root)
    # The seed stays as written: no dream at start (it would list the card on its day page).
    settings = [*surface_settings(root, fake_llm.base_url), "memory.dream.auto=false"]
    surface = start_surface(["serve", "--port", "0", *settings])
    wait_until_healthy(surface.url)
    try:
        yield Studio(surface, root, settings)
    finally:
        surface.stop()


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the Studio tests (the distribution's, never a downloaded one);
    each test gets its own context (cookies, storage), so sharing the process is safe."""
    assert Path(CHROMIUM).exists(), "install the browser: apt-get install -y chromium"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    try:
        yield opened
    finally:
        context.close()


def logged_in(page: Page, studio: Studio) -> Page:
    """`page` logged in to `studio` with a one-time link, on Studio's home page. The link is
    minted here as `remecli studio` mints it (a process per login cost ~5 s on the loaded test
    machine); tests/studio/test_launch.py checks the command itself."""
    token = load_token(studio.root).value
    page.goto(login_url(studio.url, token))
    page.wait_for_selector("article.note[data-path='MEMORY.md']")
    return page


def has_its_stamp(page: Page, path: str = "") -> None:
    """Wait for the page's next live poll of `path` (its change stamp; "" off a note's pages),
    not a fixed time: a change on disk made after this is one the page's polls will notice."""

    def polled(response: Response) -> bool:
        url = urlsplit(response.url)
        asked = parse_qs(url.query).get("path", [""])[0]
        return url.path.endswith("/studio/api/stamp") and asked == path and response.ok

    page.wait_for_event("response", polled, timeout=10_000)


def screenshot(page: Page, name: str) -> None:
    """Take a picture of the page: kept for the documentation (docs/studio/<name>.png) only with
    REMECLI_UPDATE_SCREENSHOTS=1, so that running the suite never changes tracked files."""
    if os.environ.get("REMECLI_UPDATE_SCREENSHOTS") == "1":
        folder = DOCS_SCREENSHOTS
    else:
        folder = Path(tempfile.gettempdir()) / "remecli-studio-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))
