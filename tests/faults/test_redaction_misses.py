"""Issue 25.20: secrets the redactor missed, stored through a real `remecli job` process, and
secrets typed in chat sent verbatim to the summarizer model.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from remecli.knowledge.summary.summarizer import Summarizer
from remecli.notes.layout import WorkingDir
from tests.cli_process import run_remecli
from tests.fakes.faulty_openai import FaultyOpenAIServer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

URL_PASSWORD = "Xq7pL0ngRedisPw"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKY"
SENTENCE_PASSWORD = "plum-42-orchard"
NOTE = (
    "# Infra\n\n"
    f"- cache: redis://:{URL_PASSWORD}@cache.internal:6379/0\n"
    f"- deploy user: AKIAZ7QWERTYUIOP1234 with {AWS_SECRET}\n"
    f"- the db password is {SENTENCE_PASSWORD}\n"
    "- the backup password is stored in the vault\n"
    "- release commit 3f786850e387550fdab836ed7e6dc881de23001b\n"
)
SECRETS = (URL_PASSWORD, AWS_SECRET, SENTENCE_PASSWORD, "AKIAZ7QWERTYUIOP1234")


@pytest.mark.timeout(300)  # a real process on a shared machine
def test_job_write_redacts_the_formats_that_slipped_through(tmp_path: Path) -> None:
    proc = run_remecli(
        "job",
        "memory_write",
        "--path",
        "memory/infra.md",
        "--content",
        NOTE,
        f"working_dir={tmp_path / '.reme'}",
        "search.embedding.backend=none",
        cwd=tmp_path,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    stored = (tmp_path / ".reme" / "memory" / "infra.md").read_text()
    history_files = (tmp_path / ".reme" / ".history").rglob("*")
    history = b"".join(gzip.decompress(p.read_bytes()) for p in history_files if p.suffix == ".gz")
    for secret in SECRETS:
        assert secret not in stored and secret not in proc.stdout, secret
        assert secret.encode() not in history, secret
    assert "redis://:[REDACTED:url_password]@cache.internal" in stored
    assert "[REDACTED:aws_secret_key]" in stored
    assert "the db password is [REDACTED:password]" in stored
    assert "the backup password is stored in the vault" in stored  # not a secret: kept
    assert "3f786850e387550fdab836ed7e6dc881de23001b" in stored  # a hash: kept


async def test_summarizer_model_never_sees_a_secret_typed_in_chat(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    working_dir = WorkingDir(tmp_path / ".reme").ensure()
    fake_llm.add_text("Nothing worth keeping.")
    fake_llm.set_fallback("Nothing worth keeping.")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    typed = f"Use sk-proj-{'A1b2C3d4' * 4} and {NOTE}"
    await summarizer.summarize(
        [user(typed, "10:05"), assistant("Noted.", "10:06")], date=DAY, session_id="s1"
    )
    sent = "".join(str(request.body) for request in fake_llm.chat_requests())
    assert "cache.internal" in sent  # the transcript did go to the model
    for secret in (*SECRETS, f"sk-proj-{'A1b2C3d4' * 4}"):
        assert secret not in sent, secret


@pytest.mark.timeout(300)  # a real process on a shared machine
def test_a_card_named_with_a_secret_gets_a_file_name_without_it(tmp_path: Path) -> None:
    """Issue 25.16: a card's name becomes its file name under memory/ and .history/."""
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7d"
    proc = run_remecli(
        "job",
        "memory_write_card",
        "--name",
        f"deploy key {token}",
        "--description",
        "where the deploy key lives",
        "--content",
        "Kept in the vault.",
        f"working_dir={tmp_path / '.reme'}",
        "search.embedding.backend=none",
        cwd=tmp_path,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr
    names = [str(p.relative_to(tmp_path)) for p in (tmp_path / ".reme").rglob("*")]
    assert any("deploy-key-redacted-github-token.md" in name for name in names), names
    for secret in (token, token.lower(), token.lower().replace("_", "-")):
        assert not any(secret in name for name in names), secret
        assert secret not in proc.stdout, secret
