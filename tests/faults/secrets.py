"""Secrets of every common kind, and a search for any of them in every file under a folder."""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

OPENAI_KEY = "sk-proj-" + "Zq9Xw8Vu7Ts6" * 3
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
AWS_KEY_ID = "AKIAZ7QWERTYUIOP5678"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCyzSECRETKEY"
SLACK_TOKEN = "xoxb-2048-4096-" + "aBcDeFgHiJkLmNoP"
SENTENCE_PASSWORD = "plum-42-orchard"
LABELLED_PASSWORD = "Corvid!Lantern88"
URL_PASSWORD = "Xq7pL0ngRedisPw"
QUERY_TOKEN = "qt9f8e7d6c5b4a3f2e1d"
PRIVATE_KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
ENV_TOKEN = "tok3nV4lu3FromDotEnv99"
ENV_SECRET_KEY = "djangoSecretKey_5f3a9c77"
ENV_DB_PASSWORD = "envDbPassw0rd"
STRIPE_KEY = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"

TYPED_SECRETS = (
    OPENAI_KEY,
    GITHUB_TOKEN,
    AWS_KEY_ID,
    AWS_SECRET,
    SLACK_TOKEN,
    SENTENCE_PASSWORD,
    LABELLED_PASSWORD,
    URL_PASSWORD,
    QUERY_TOKEN,
    PRIVATE_KEY_BODY,
)
ENV_SECRETS = (ENV_TOKEN, ENV_SECRET_KEY, ENV_DB_PASSWORD, STRIPE_KEY)
ALL_SECRETS = TYPED_SECRETS + ENV_SECRETS

TYPED = (
    f"Keep these for the deploy: my key is {OPENAI_KEY}, the CI token {GITHUB_TOKEN}, "
    f"AWS {AWS_KEY_ID} / {AWS_SECRET}, slack {SLACK_TOKEN}. The db password is "
    f"{SENTENCE_PASSWORD}. admin password: {LABELLED_PASSWORD}. Cache at "
    f"redis://:{URL_PASSWORD}@cache.internal:6379, webhook https://hooks.example.com/x?token="
    f"{QUERY_TOKEN}\n-----BEGIN PRIVATE KEY-----\n{PRIVATE_KEY_BODY}\n"
    f"{PRIVATE_KEY_BODY[::-1]}\n-----END PRIVATE KEY-----\nThanks!"
)
DOT_ENV = (
    "# local settings\n"
    "DEBUG=true\n"
    f"API_TOKEN={ENV_TOKEN}\n"
    f"DJANGO_SECRET_KEY={ENV_SECRET_KEY}\n"
    f'DB_PASSWORD="{ENV_DB_PASSWORD}"\n'
    f"STRIPE_KEY={STRIPE_KEY}\n"
    "MAX_TOKENS=4096\n"
)


def stored_bytes(path: Path) -> bytes:
    """What a file holds as it would be read back: `.gz` decompressed, a SQLite database also
    as the rows SQLite returns (besides its raw pages, which `secure_delete` zeroes)."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        return data + gzip.decompress(data)
    if data.startswith(b"SQLite format 3"):
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master")]
            for table in tables:
                try:
                    rows = connection.execute(f'SELECT * FROM "{table}"').fetchall()
                except sqlite3.DatabaseError:
                    continue
                data += repr(rows).encode()
        finally:
            connection.close()
    return data


def secrets_found(root: Path, secrets: tuple[str, ...] = ALL_SECRETS) -> dict[str, list[str]]:
    """file (relative to `root`) → the secrets found in it verbatim or lower-cased; every
    file under `root`, hidden ones, WAL files and history versions included."""
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = stored_bytes(path)
        lowered = data.lower()
        hits = [s for s in secrets if s.encode() in data or s.lower().encode() in lowered]
        if hits:
            found[path.relative_to(root).as_posix()] = hits
    return found
