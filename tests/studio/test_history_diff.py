"""A note's history diff keeps every changed line, also those that begin like a diff's own file
names (`---`, `+++`): a C loop's `++i`, a command's `--flag`, a Markdown rule `---`; and a
restore of the version the file already is says there is nothing to restore (issue 38)."""

from __future__ import annotations

import json
import urllib.request

from playwright.sync_api import Page, expect

from tests.studio.conftest import Studio, logged_in

NOTE = "digest/wiki/loop.md"


def call_api(studio: Studio, job: str, body: dict) -> dict:
    """POST /api/<job> with the server's bearer token, as any API client does."""
    token = (studio.root / "serve.token").read_text().strip()
    request = urllib.request.Request(
        f"{studio.url}/api/{job}",
        data=json.dumps(body).encode(),
        headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


def write(studio: Studio, path: str, content: str) -> None:
    """memory_write through the HTTP API (a version is kept, as for any write)."""
    call_api(studio, "memory_write", {"path": path, "content": content, "allow_shrink": True})


def test_the_diff_keeps_lines_that_start_with_dashes_or_pluses(page: Page, studio: Studio) -> None:
    before = "---\nname: Loop\n---\n# Loop\n\n-- old flag\nkeep\n"
    after = "---\nname: Loop\n---\n# Loop\n\n++i\n--flag\nkeep\n---\n"
    write(studio, NOTE, before)
    write(studio, NOTE, after)
    logged_in(page, studio)
    answer = page.request.get(f"{studio.url}/studio/api/diff?path={NOTE}&old=1&new=current")
    rows = answer.json()["rows"]
    assert {"kind": "del", "text": "-- old flag"} in rows
    assert {"kind": "add", "text": "++i"} in rows
    assert {"kind": "add", "text": "--flag"} in rows
    assert {"kind": "add", "text": "---"} in rows
    assert [r["kind"] for r in rows].count("hunk") == 1  # one `@@`, no file names

    page.goto(f"{studio.url}/#/history/{NOTE}")
    diff = page.locator("pre.diff")
    expect(diff.locator(".diff-add")).to_have_text(["+ ++i", "+ --flag", "+ ---"])
    expect(diff.locator(".diff-del")).to_have_text(["- -- old flag"])


def test_restoring_the_version_the_file_already_is_says_so(page: Page, studio: Studio) -> None:
    write(studio, NOTE, "# Loop\n\nfirst\n")
    write(studio, NOTE, "# Loop\n\nsecond\n")  # version 2 is the file as it is
    logged_in(page, studio)
    page.goto(f"{studio.url}/#/history/{NOTE}")
    newest = page.locator("table.versions tbody tr[data-version='2']")
    newest.locator("button[data-restore]").click()
    newest.locator("button[data-confirm-restore]").click()
    expect(page.locator("#status")).to_contain_text(f"Nothing to restore: {NOTE} is already")
    expect(page.locator("#status")).not_to_contain_text("null")
    expect(page.locator("table.versions tbody tr[data-version]")).to_have_count(2)
