"""Scoped tokens: who may do what over HTTP and MCP-over-HTTP (`remecli token add/list/revoke`).

A token is shown once, when it is made; `<working_dir>/tokens.json` (mode 0600) keeps only its
SHA-256 hash, its name, its scope and an optional path glob. Scopes nest: `read` runs the
read-only jobs, `write` also the writing ones, `admin` everything (including the token list and
the access log over HTTP). The bootstrap token (`serve.token`) is an admin token named
`serve.token`; stdio MCP is the local user, also admin.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, get_args

from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_text
from remecli.notes.locks import FileLock
from remecli.ops.paths import TOKENS_FILE

Scope = Literal["read", "write", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
RANK = {"read": 0, "write": 1, "admin": 2}
PREFIX = "reme_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class TokenError(ValueError):
    """A token command that cannot be done; the message says what to do instead."""


@dataclass(frozen=True)
class Principal:
    """Who is calling: a token's name, its scope and the glob its paths are confined to."""

    name: str
    scope: Scope
    paths: str | None = None

    def allows(self, needed: Scope) -> bool:
        """True when this scope includes `needed` (read < write < admin)."""
        return RANK[self.scope] >= RANK[needed]


LOCAL_USER = Principal("local", "admin")  # stdio MCP, the CLI: the user at the keyboard


@dataclass(frozen=True)
class TokenRecord:
    """One stored token (its hash, never the token)."""

    name: str
    scope: Scope
    paths: str | None
    sha256: str
    created: str

    def principal(self) -> Principal:
        return Principal(self.name, self.scope, self.paths)


def _leaves_working_dir(glob: str) -> bool:
    """True for a glob that is absolute (/, ~, a drive) or climbs out with '..'."""
    text = glob.strip().replace("\\", "/")
    parts = text.split("/")
    return text.startswith(("/", "~")) or ":" in parts[0] or ".." in parts


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class TokenStore:
    """The scoped tokens of one working dir, in `tokens.json` (0600)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / TOKENS_FILE

    def records(self) -> list[TokenRecord]:
        """Every token, oldest first (an absent file: none)."""
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            raise TokenError(f"{TOKENS_FILE} is unreadable ({exc}); fix or delete it") from None
        return [TokenRecord(**entry) for entry in raw.get("tokens", [])]

    def _save(self, records: list[TokenRecord]) -> None:
        private_dirs(self.root)
        text = json.dumps({"tokens": [asdict(r) for r in records]}, indent=2) + "\n"
        atomic_write_text(self.path, text, new_mode=0o600)

    def _locked(self) -> FileLock:
        private_dirs(self.root)
        return FileLock(self.path.with_name(f".{TOKENS_FILE}.lock"))

    def add(self, name: str, scope: Scope, paths: str | None = None) -> str:
        """Make token `name`; returns the secret (shown once, stored only as a hash)."""
        if not _NAME.match(name):
            raise TokenError(
                f"token name {name!r} refused; use letters, digits, '.', '_' or '-' (up to 64)"
            )
        if scope not in SCOPES:
            raise TokenError(f"scope {scope!r} unknown; pick one of {', '.join(SCOPES)}")
        if paths is not None and scope == "admin":
            raise TokenError(
                "an admin token is not confined to paths; drop --paths or pick read/write"
            )
        if paths is not None and not paths.strip():
            raise TokenError("--paths is empty; give a glob such as 'memory/**'")
        if paths is not None and _leaves_working_dir(paths):
            raise TokenError(
                f"--paths {paths!r} leaves the working dir; give a glob relative to it, such "
                "as 'memory/**'"
            )
        secret = PREFIX + secrets.token_urlsafe(32)
        with self._locked():
            records = self.records()
            if any(r.name == name for r in records):
                raise TokenError(f"a token named {name!r} exists; revoke it first or pick a name")
            created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            records.append(TokenRecord(name, scope, paths, _digest(secret), created))
            self._save(records)
        return secret

    def revoke(self, name: str) -> None:
        """Forget token `name` (it stops working at the next request)."""
        with self._locked():
            records = self.records()
            kept = [r for r in records if r.name != name]
            if len(kept) == len(records):
                known = ", ".join(r.name for r in records) or "none"
                raise TokenError(f"no token named {name!r}; known tokens: {known}")
            self._save(kept)

    def find(self, secret: str) -> Principal | None:
        """The principal whose token is `secret`, or None (read fresh: a revoke counts at once)."""
        if not secret.startswith(PREFIX) or not self.path.exists():
            return None
        wanted = _digest(secret)
        for record in self.records():
            if hmac.compare_digest(record.sha256, wanted):
                return record.principal()
        return None
