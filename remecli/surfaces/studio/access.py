"""Who may use Studio: one-time login links, browser sessions, CSRF tokens, Host and Origin rules.

A login link carries a ticket `<time>.<nonce>.<signature>`: an HMAC of the time and a random
nonce under the server's bearer token, so whoever can read the token (`remecli studio`) can mint
one and nobody else can. A ticket works once, within `TICKET_SECONDS`, and becomes a session:
an HttpOnly, SameSite=Strict cookie holding a random id (never the token) plus a CSRF token the
page sends back on every write.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

TICKET_SECONDS = 120
SESSION_SECONDS = 12 * 3600
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
CSRF_HEADER = "x-csrf-token"
LOGIN_PATH = "/studio/login"


def _signature(token: str, stamp: int, nonce: str) -> str:
    message = f"remecli-studio-login:{stamp}:{nonce}".encode()
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()


def mint_ticket(token: str, now: float | None = None) -> str:
    """A fresh one-time login ticket signed with the server's bearer `token`."""
    stamp = int(time.time() if now is None else now)
    nonce = secrets.token_urlsafe(16)
    return f"{stamp}.{nonce}.{_signature(token, stamp, nonce)}"


def login_url(base_url: str, token: str) -> str:
    """The one-time URL that logs a browser in to the Studio at `base_url`."""
    return f"{base_url.rstrip('/')}{LOGIN_PATH}?ticket={mint_ticket(token)}"


def cookie_name(port: int | None) -> str:
    """Cookies are shared by every port of a host: one name per port keeps servers apart."""
    return f"remecli_studio_{port or 0}"


@dataclass(frozen=True)
class Session:
    """One logged-in browser: its CSRF token and when it ends."""

    csrf: str
    expires: float


class Sessions:
    """Login tickets already used, and the live sessions (in memory: a restart logs out)."""

    def __init__(self, token: str) -> None:
        self._token = token
        self._used: dict[str, float] = {}
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def redeem(self, ticket: str, now: float | None = None) -> str | None:
        """A new session id for a valid, fresh, unused `ticket`; None otherwise."""
        moment = time.time() if now is None else now
        try:
            stamp_text, nonce, signature = ticket.split(".", 2)
            stamp = int(stamp_text)
        except ValueError:
            return None
        expected = _signature(self._token, stamp, nonce)
        if not hmac.compare_digest(expected, signature):
            return None
        if not -5 <= moment - stamp <= TICKET_SECONDS:
            return None
        with self._lock:
            self._used = {n: t for n, t in self._used.items() if moment - t <= TICKET_SECONDS}
            if nonce in self._used:
                return None
            self._used[nonce] = stamp
            self._sessions = {k: v for k, v in self._sessions.items() if v.expires >= moment}
            session_id = secrets.token_urlsafe(32)
            self._sessions[session_id] = Session(
                csrf=secrets.token_urlsafe(32), expires=moment + SESSION_SECONDS
            )
        return session_id

    def get(self, session_id: str | None, now: float | None = None) -> Session | None:
        """The live session with this id, or None."""
        if not session_id:
            return None
        moment = time.time() if now is None else now
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.expires < moment:
                del self._sessions[session_id]
                return None
            return session


def host_allowed(host_header: str | None) -> bool:
    """True when the Host header names this machine (a page that rebinds a DNS name to
    127.0.0.1 gets refused)."""
    if not host_header:
        return False
    hostname = urlsplit(f"//{host_header}").hostname
    return hostname in LOOPBACK_HOSTS


def origin_allowed(
    origin: str | None, host_header: str | None, fetch_site: str | None, referer: str | None = None
) -> bool:
    """True when a write comes from Studio's own page: its `Origin` (without one, its `Referer`)
    is this server's own origin, and the browser's Sec-Fetch-Site does not say otherwise. A
    request that names no origin at all is refused, whatever CSRF token it carries."""
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return False
    if not host_header:
        return False
    own = f"http://{host_header}"
    if origin is not None:
        return origin == own
    if not referer:
        return False
    parts = urlsplit(referer)
    return f"{parts.scheme}://{parts.netloc}" == own


def csrf_matches(sent: str | None, session: Session) -> bool:
    """True when the request carries the session's CSRF token (constant-time compare)."""
    return bool(sent) and hmac.compare_digest(str(sent).encode(), session.csrf.encode())
