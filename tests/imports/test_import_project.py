"""Imported sessions carry the project of the folder they were held in (issue 22.1): Claude Code's
`cwd` and Codex's `session_meta.cwd`, when that folder is a project here (a git work tree or a
`.reme`); a session from a folder that is none records no project, and a format that names no
folder (OpenAI messages) records the importing process's current project."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from remecli.knowledge.imports import read_conversation
from tests.cli_process import fake_llm_settings, run_remecli
from tests.imports.dated_model import DatedSummarizer

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude_code_midnight.jsonl"
CODEX = next((FIXTURES / "codex_home" / "sessions" / "2025" / "06" / "30").glob("*.jsonl"))
CLAUDE_ID = "claude-7c9e6679-7425-40de-944b-e07fc1f90ae7"
CODEX_ID = "codex-0199a3f2-5c1e-7d40-b8a2-3e9f1c6d2a47"


def moved(source: Path, target: Path, old_cwd: str, new_cwd: Path) -> Path:
    """A copy of the transcript `source` as if it had been held in `new_cwd`."""
    text = source.read_text(encoding="utf-8").replace(f'"{old_cwd}"', json.dumps(str(new_cwd)))
    target.write_text(text, encoding="utf-8")
    return target


def projects_of(transcript: Path) -> set[str | None]:
    lines = transcript.read_text(encoding="utf-8").splitlines()
    return {json.loads(line).get("project") for line in lines if line.strip()}


def test_the_importers_read_the_sessions_folder(tmp_path: Path) -> None:
    billing = tmp_path / "billing"
    (billing / "api").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=billing, check=True)
    claude = read_conversation(moved(CLAUDE, tmp_path / "c.jsonl", "/home/dev/billing", billing / "api"))  # fmt: skip
    assert claude.cwd == str(billing / "api") and claude.project == "billing"
    codex = read_conversation(CODEX)
    assert codex.cwd == "/home/dev/infra" and codex.project == ""  # not a project here
    assert read_conversation(FIXTURES / "openai_chat.json").project is None


@pytest.mark.timeout(600)  # a real import with summaries, on a shared machine
def test_imported_transcripts_record_their_project(tmp_path: Path, fake_llm) -> None:
    fake_llm.set_fallback(DatedSummarizer())
    billing, infra = tmp_path / "billing", tmp_path / "infra"
    for repo in (billing, infra):
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    moved(CLAUDE, inbox / "claude.jsonl", "/home/dev/billing", billing)
    moved(CODEX, inbox / "codex.jsonl", "/home/dev/infra", infra / "modules")  # gone here
    shutil.copy(FIXTURES / "openai_chat.json", inbox / "chat.json")
    working_dir = tmp_path / "shared-memory"  # not a `.reme`: no project memory above them
    settings = [*fake_llm_settings(working_dir, fake_llm.base_url), "project=desk"]
    done = run_remecli("import", str(inbox), *settings, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    sessions = working_dir / "sessions"
    assert projects_of(sessions / f"{CLAUDE_ID}.jsonl") == {"billing"}
    assert projects_of(sessions / f"{CODEX_ID}.jsonl") == {None}  # its folder is not here
    openai = next(p for p in sessions.glob("*.jsonl") if p.name.startswith("openai"))
    assert projects_of(openai) == {"desk"}  # no folder named: the current project
    found = run_remecli(
        "search", "billing charges key", "--project", "billing", "--json", *settings, cwd=tmp_path
    )
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits and {hit["path"] for hit in hits} == {f"sessions/{CLAUDE_ID}.jsonl"}
