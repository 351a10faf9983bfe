"""`remecli import` sends nothing to a model the user did not configure: with
`memory.summarize=false` nothing is summarized at all, and without a configured model the
summaries wait in sessions/pending/ (said once) — no request leaves (a recording proxy stands in
for the default host), no agentscope warning reaches the terminal. An imported conversation
keeps its own times: the listing, the transcript page and search date it when it was held."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli_process import run_remecli
from tests.fakes.recording_proxy import RecordingProxy

FIXTURES = Path(__file__).parent / "fixtures"
CODEX_ID = "codex-0199a3f2-5c1e-7d40-b8a2-3e9f1c6d2a47"  # held on 2025-06-30 23:55


def _import(tmp_path: Path, *settings: str) -> tuple[str, str, list[str]]:
    inbox = tmp_path / "inbox"
    shutil.copytree(FIXTURES / "codex_home" / "sessions", inbox)
    memory = tmp_path / ".reme"
    with RecordingProxy() as proxy:
        proc = run_remecli(
            "import",
            str(inbox),
            f"working_dir={memory}",
            "search.embedding.backend=none",
            *settings,
            cwd=tmp_path,
            env=proxy.proxy_env(),
            timeout=180,
        )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr, proxy.requests


def test_summarize_false_imports_without_any_model_call_and_keeps_the_dates(
    tmp_path: Path,
) -> None:
    stdout, stderr, requests = _import(tmp_path, "memory.summarize=false")
    assert f"{CODEX_ID} (codex, 2025-06-30): 6 new" in stdout
    assert requests == []  # was: the summarizer against api.openai.com (gpt-4o-mini)
    assert "WARNING" not in stderr and "attempt(s) failed" not in stderr
    memory = tmp_path / ".reme"
    assert not list((memory / "sessions" / "pending").glob("*.json"))  # nothing to summarize
    page = (memory / "sessions" / f"{CODEX_ID}.md").read_text(encoding="utf-8")
    assert "· 2025-06-30 23:55" in page  # was: the time of the import
    listing = run_remecli("sessions", f"working_dir={memory}", cwd=tmp_path)
    [line] = [row for row in listing.stdout.splitlines() if row.startswith(CODEX_ID)]
    assert line.split()[1:3] == ["2025-06-30", "23:55"]  # started: when it was held
    found = run_remecli(
        "search",
        "terraform",
        f"working_dir={memory}",
        "search.embedding.backend=none",
        cwd=tmp_path,
    )
    assert f"sessions/{CODEX_ID}.jsonl" in found.stdout
    assert "(transcript, 2025-06-30)" in found.stdout  # was: the day it was imported


def test_without_a_model_the_summaries_wait_and_it_is_said_once(tmp_path: Path) -> None:
    _, stderr, requests = _import(tmp_path)
    assert requests == []
    assert stderr.count("No model is configured") == 1 and "REME_LLM_API_KEY" in stderr
    assert "WARNING" not in stderr
    assert len(list((tmp_path / ".reme" / "sessions" / "pending").glob("*.json"))) == 2
