"""What `remecli studio` does: find this working dir's server on 127.0.0.1:PORT (asking it who
it is with the bearer token), or serve here; then print and open a one-time login link."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import urllib.error
import urllib.request
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from remecli.surfaces.auth import ServeToken, load_token
from remecli.surfaces.serving import say
from remecli.surfaces.studio.access import login_url

if TYPE_CHECKING:
    from remecli.config.settings import Settings

HOST = "127.0.0.1"
PROBE_SECONDS = 3.0
BROWSER_SECONDS = 10.0


class OtherServer(Exception):
    """Something else answers on the port: the message says what to do."""


def _settings(setting_args: list[str]) -> Any:
    from remecli.config import load_settings
    from remecli.config.locations import Locations
    from remecli.config.logs import setup_logging
    from remecli.llm.logs import route_runtime_logs

    settings = load_settings(setting_args)
    root = Locations.from_settings(settings).root
    settings = settings.with_changes({"working_dir": str(root)})
    setup_logging(settings)
    route_runtime_logs()
    return settings


def _call(url: str, token: ServeToken | None = None) -> tuple[int, dict[str, object]]:
    """(status, JSON body) of GET (no token) or POST {} (with the bearer token) to `url`."""
    request = urllib.request.Request(url, method="GET" if token is None else "POST")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token.value}")
        request.add_header("Content-Type", "application/json")
        request.data = b"{}"
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {}


def find_server(base_url: str, token: ServeToken, root: Path) -> bool:
    """True when this working dir's server answers at `base_url`; False when nothing listens;
    OtherServer when something else does."""
    where = urlsplit(base_url)
    try:
        with socket.create_connection((where.hostname or HOST, where.port or 80), PROBE_SECONDS):
            pass
    except OSError:
        return False
    try:
        health, _ = _call(f"{base_url}/api/health")
        status, body = _call(f"{base_url}/api/memory_status", token) if health == 200 else (0, {})
    except (OSError, ValueError):
        health = 0
    if health != 200:
        raise OtherServer(f"{base_url} is not a remecli server; pick another port with --port")
    if status == 401:
        raise OtherServer(
            f"the remecli server at {base_url} has another token (another working dir?); "
            "pass its --token, or start Studio on another port with --port"
        )
    if status != 200:
        raise OtherServer(f"the remecli server at {base_url} answered {status}")
    served = Path(str(body.get("working_dir", ""))).resolve()
    if served != root.resolve():
        raise OtherServer(
            f"the remecli server at {base_url} serves {served}, not {root}; stop it or use --port"
        )
    return True


def _open_browser(link: str) -> None:
    if not webbrowser.open(link):
        say("remecli studio: no browser found; open the link above yourself")


def _announce(base_url: str, token: ServeToken, browser: bool) -> threading.Thread | None:
    link = login_url(base_url, token.value)
    print(f"remecli studio: {base_url}/ — log in with this one-time link:\n{link}", flush=True)
    if not browser:
        return None
    # in a thread: a console browser may hold the terminal, and the server must keep serving
    opener = threading.Thread(target=_open_browser, args=(link,), daemon=True)
    opener.start()
    return opener


async def _serve(settings: Settings, token: ServeToken, port: int, browser: bool) -> None:
    from remecli.ops import JobRunner
    from remecli.surfaces.http_api import build_app
    from remecli.surfaces.serving import serve_http

    runner = JobRunner.from_settings(settings)
    app = build_app(runner, token)

    def announce(url: str) -> None:
        say(f"remecli studio: serving {url} (API at {url}/api); Ctrl+C stops it")
        _announce(url, token, browser)

    await serve_http(runner, app, HOST, port, announce)


def _server_url(root: Path, port: int) -> str | None:
    """Where to look for this memory's server: the one `remecli serve` announced for it (when
    --port is left at its default and Studio can be opened there), else 127.0.0.1:PORT (None:
    port 0, start one)."""
    from remecli.surfaces.daemon import find_daemon
    from remecli.surfaces.defaults import DEFAULT_SERVE_PORT

    announced = find_daemon(root)
    if port == DEFAULT_SERVE_PORT and announced is not None:
        host = urlsplit(announced.url).hostname
        if announced.url.startswith("http://") and host in (HOST, "localhost"):
            return announced.url
    return f"http://{HOST}:{port}" if port else None


def open_studio(
    port: int, explicit_token: str | None, setting_args: list[str], *, browser: bool
) -> int:
    """Run `remecli studio`; its exit code."""
    from remecli.config import ConfigError

    try:
        settings = _settings(setting_args)
        root = Path(settings.working_dir)
        token = load_token(root, explicit_token)
        base_url = _server_url(root, port)
        if base_url and find_server(base_url, token, root):
            opener = _announce(base_url, token, browser)
            if opener is not None:
                opener.join(BROWSER_SECONDS)
            return 0
        asyncio.run(_serve(settings, token, port, browser))
    except (ConfigError, ValueError, OtherServer) as exc:
        print(f"remecli studio: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"remecli studio: {exc} (is the port in use? pick one with --port)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        say("remecli studio: stopped at once; unfinished memory work resumes at the next start")
        return 130
    return 0
