"""Who gets in: the one-time login link, the session cookie's rules, the how-to page for a
browser without a session, CSRF and Origin on writes, and the Host check."""

from __future__ import annotations

import hashlib

import httpx
from playwright.sync_api import Page, expect

from tests.studio.conftest import CARD, Studio, logged_in, screenshot


def test_root_without_a_session_says_how_to_log_in(page: Page, studio: Studio) -> None:
    answer = page.goto(studio.url + "/")
    assert answer is not None and answer.status == 200
    assert answer.headers["content-type"].startswith("text/html")
    expect(page.locator("pre.command")).to_have_text("remecli studio")
    expect(page.locator("body")).to_contain_text("not logged in")
    screenshot(page, "login")
    api = httpx.get(f"{studio.url}/studio/api/nav")  # the page's JSON needs the session too
    assert api.status_code == 401 and "remecli studio" in api.json()["error"]
    rebound = httpx.get(f"{studio.url}/", headers={"host": "attacker.example"})  # DNS rebinding
    assert rebound.status_code == 421
    assert httpx.get(f"{studio.url}/", headers={"host": "localhost"}).status_code == 200
    assert httpx.get(f"{studio.url}/api/health").status_code == 200  # the API is unchanged


def test_one_time_link_logs_in_once_with_a_strict_httponly_cookie(
    page: Page, studio: Studio
) -> None:
    link = studio.login_url()
    page.goto(link)
    page.wait_for_selector("article.note[data-path='MEMORY.md']")
    assert page.url == studio.url + "/"  # the ticket left the address bar
    [cookie] = page.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == ""  # scripts cannot read the session
    assert cookie["value"] not in page.content()
    token = (studio.root / "serve.token").read_text().strip()
    assert token not in page.content() and token not in link
    expect(page.locator("#nav")).to_contain_text("Cards")

    again = page.context.browser.new_context()  # the same link, another browser: refused
    try:
        second = again.new_page()
        answer = second.goto(link)
        assert answer is not None and answer.status == 403
        expect(second.locator(".login-message")).to_contain_text("already used")
        assert again.cookies() == []
    finally:
        again.close()


def _post_from(page: Page, url: str, csrf: str | None) -> int:
    """POST /studio/api/save from the page's own origin, with or without the CSRF header."""
    headers = {"content-type": "application/json"}
    if csrf is not None:
        headers["x-csrf-token"] = csrf
    return page.evaluate(
        """async ([url, headers]) => (await fetch(url + "/studio/api/save", {method: "POST",
             headers, body: JSON.stringify({path: "MEMORY.md", content: "hijacked\\n",
             base_sha256: null})})).status""",
        [url, headers],
    )


def test_writes_need_the_csrf_token_and_studios_own_origin(page: Page, studio: Studio) -> None:
    logged_in(page, studio)
    memory = studio.root / "MEMORY.md"
    before = memory.read_text()
    csrf = page.locator('meta[name="csrf-token"]').get_attribute("content")
    assert csrf
    assert _post_from(page, studio.url, None) == 403  # the cookie alone is not enough
    assert memory.read_text() == before

    # A page of another origin on the same site (127.0.0.1, another port): the browser sends
    # the SameSite=Strict cookie with its simple POST; Studio refuses it all the same.
    other = "http://127.0.0.1:9/attack.html"
    page.route(other, lambda route: route.fulfill(content_type="text/html", body="<p>hi</p>"))
    page.goto(other)
    status = page.evaluate(
        """async (url) => {
             try {
               const answer = await fetch(url + "/studio/api/save", {method: "POST",
                 credentials: "include", mode: "no-cors",
                 headers: {"content-type": "text/plain"},
                 body: JSON.stringify({path: "MEMORY.md", content: "hijacked\\n",
                                       base_sha256: null})});
               return answer.type;
             } catch (error) { return "blocked"; }
           }""",
        studio.url,
    )
    assert status in ("opaque", "blocked")
    page.wait_for_timeout(300)
    assert memory.read_text() == before

    cross = httpx.post(  # with the cookie and the CSRF token: the Origin check alone refuses
        f"{studio.url}/studio/api/save",
        headers={"origin": "http://127.0.0.1:9", "x-csrf-token": csrf},
        cookies={c["name"]: c["value"] for c in page.context.cookies()},
        json={"path": CARD, "content": "hijacked\n", "base_sha256": None},
    )
    assert cross.status_code == 403 and cross.json()["code"] == "origin"


def test_a_write_that_names_no_origin_is_refused_even_with_the_csrf_token(studio: Studio) -> None:
    with httpx.Client(base_url=studio.url, timeout=60) as client:
        assert client.get(studio.login_url()).status_code == 303
        home = client.get("/").text
        csrf = home.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
        card = studio.root / CARD
        before = card.read_text()
        body = {"path": CARD, "content": before + "\nmore\n", "base_sha256": sha256_of(card)}
        bare = client.post("/studio/api/save", headers={"x-csrf-token": csrf}, json=body)
        assert bare.status_code == 403 and bare.json()["code"] == "origin"
        assert "Origin or Referer" in bare.json()["error"] and card.read_text() == before
        for n, header in enumerate(({"origin": studio.url}, {"referer": f"{studio.url}/"})):
            body = {"path": CARD, "content": f"{before}\n{n}\n", "base_sha256": sha256_of(card)}
            answer = client.post(
                "/studio/api/save", headers={"x-csrf-token": csrf, **header}, json=body
            )
            assert answer.status_code == 200, (header, answer.text)
            assert card.read_text() == f"{before}\n{n}\n"


def sha256_of(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
