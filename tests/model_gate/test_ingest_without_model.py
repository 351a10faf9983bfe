"""Resource cards ask the one model gate first: `remecli ingest` without a configured model
sends nothing anywhere, says once what is missing and how to configure it, and leaves the
files in resource/ for an ingest (or a start) with a model."""

from __future__ import annotations

from pathlib import Path

from tests.cli_process import run_remecli
from tests.fakes.recording_proxy import RecordingProxy


def test_ingest_without_a_model_sends_nothing_and_says_so_once(tmp_path: Path) -> None:
    root = tmp_path / ".reme"
    for name in ("plan.md", "notes.txt"):
        (tmp_path / name).write_text(f"{name}: migrate atlas in March.\n", encoding="utf-8")
    with RecordingProxy() as proxy:
        done = run_remecli(
            "ingest",
            "plan.md",
            "notes.txt",
            f"working_dir={root}",
            "search.embedding.backend=none",
            cwd=tmp_path,
            env=proxy.proxy_env(),
            timeout=120,
        )
    assert proxy.requests == []
    assert done.returncode == 1  # not done: the files wait
    shown = done.stdout + done.stderr
    assert shown.count("No model is configured") == 1  # was: "failed … No API key" per file
    assert shown.count("REME_LLM_API_KEY") == 1
    assert "failed" not in shown and "Traceback" not in shown
    assert shown.count("waiting   resource/") == 2
    assert sorted(p.name for p in (root / "resource").iterdir() if p.suffix != ".json") == [
        "notes.txt",
        "plan.md",
    ]
    log = (root / "logs" / "remecli.log").read_text(encoding="utf-8")
    assert "Traceback" not in log  # was: one per file (ModelNotConfigured)
