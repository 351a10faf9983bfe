"""Issue 25.8: the detectors behind every stored byte — `.env` lines, `token=` and sentence
labels, a key block cut before its END line, a value found once and repeated bare — and what
must survive them; and the log, redacted for every logger of the process.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

from remecli.config import load_settings
from remecli.config.logs import setup_logging
from remecli.notes.log_redaction import install_log_redaction
from remecli.notes.redact import redact_data, redact_text

ENV_FILE = """# local settings
export GH_TOKEN="ghp_abcdefghijklmnopqrstuvwxyz0123456789"
API_TOKEN=tok3nV4lu3FromDotEnv99
DJANGO_SECRET_KEY=djangoSecretKey_5f3a9c77
DB_PASS=short1
SENTRY_DSN=https://abc123def456@o1.ingest.sentry.io/42
MAX_TOKENS=4096
TOKEN_TTL=3600
SSH_KEY_PATH=/home/me/.ssh/id_ed25519
DEBUG=true
"""


def test_env_lines_lose_their_secret_values_and_keep_the_rest() -> None:
    out = redact_text(ENV_FILE)
    for secret in ("ghp_abcdefghij", "tok3nV4lu3", "djangoSecretKey", "short1", "abc123def456"):
        assert secret not in out, secret
    assert "API_TOKEN=[REDACTED:secret]" in out
    assert "DB_PASS=[REDACTED:password]" in out
    for kept in ("MAX_TOKENS=4096", "TOKEN_TTL=3600", "SSH_KEY_PATH=/home/me/.ssh/id_ed25519"):
        assert kept in out, kept
    assert "DEBUG=true" in out and "# local settings" in out


def test_labels_and_sentences_with_token_and_key() -> None:
    text = (
        "webhook https://example.com/hook?token=qt9f8e7d6c5b4a3f2e1d&x=1\n"
        "my api key is abcDEF123456ghiJKL789 for now\n"
        "the token is stored in the vault\n"
        "max_tokens: 4096\n"
    )
    out = redact_text(text)
    assert "qt9f8e7d6c5b4a3f2e1d" not in out and "abcDEF123456ghiJKL789" not in out
    assert "the token is stored in the vault" in out and "max_tokens: 4096" in out


def test_a_key_block_cut_before_its_end_line() -> None:
    head = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
    out = redact_text(f"$ head -2 ~/.ssh/id_ed25519\n{head}$ ls\n")
    assert "b3BlbnNzaC1rZXkt" not in out and "[REDACTED:private_key]" in out
    assert out.endswith("$ ls\n")


def test_a_secret_found_once_is_redacted_when_repeated_bare() -> None:
    redact_text("OPENAI_SESSION_SECRET=r3peat3dV4lueXYZ42")
    assert redact_text("it was r3peat3dV4lueXYZ42, right?") == "it was [REDACTED:secret], right?"


def test_redact_data_walks_records() -> None:
    record = {"t": "msg", "msg": {"content": [{"type": "text", "text": "password: Hunter2xyz"}]}}
    out = redact_data(record)
    assert out["msg"]["content"][0]["text"] == "password: [REDACTED:password]"
    assert record["msg"]["content"][0]["text"] == "password: Hunter2xyz"  # the input is kept


def test_the_log_never_holds_a_secret(tmp_path: Path) -> None:
    settings = load_settings([f"working_dir={tmp_path / '.reme'}"], environ={}, cwd=tmp_path)
    previous = logging.getLogRecordFactory()
    try:
        install_log_redaction()
        path = setup_logging(settings, cwd=tmp_path)
        log = logging.getLogger("remecli.some.module")
        log.warning("tool args %s", {"command": "export API_TOKEN=tok3nLogged99999"})
        try:
            raise ValueError("bad header Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")
        except ValueError:
            log.exception("request failed")
        for handler in logging.getLogger().handlers:
            handler.flush()
        text = path.read_text()
    finally:
        logging.setLogRecordFactory(previous)
        for handler in list(logging.getLogger().handlers):
            logging.getLogger().removeHandler(handler)
            handler.close()
    assert "tool args" in text and "request failed" in text and "ValueError" in text
    assert "tok3nLogged99999" not in text
    assert "abcdefghijklmnopqrstuvwxyz012345" not in text


def test_installing_the_log_redaction_loads_the_redactor_at_the_first_record() -> None:
    """The CLI installs it before the TUI's first frame; the patterns compile at the first log."""
    code = (
        "import logging, sys\n"
        "from remecli.notes.log_redaction import install_log_redaction\n"
        "install_log_redaction()\n"
        "print('remecli.notes.redact' in sys.modules)\n"
        "record = logging.getLogger('x').makeRecord('x', 30, 'f', 1, 'key %s', ('sk-' + 'a' * 40,), None)\n"
        "print('remecli.notes.redact' in sys.modules, record.getMessage())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["False", "True key [REDACTED:openai_key]"], (
        out.stdout + out.stderr
    )
