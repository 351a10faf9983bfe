"""A large command output is stored once (issue 25.13): `bash` keeps it whole in
`tool_result/<id>.full.txt`; when the context offloads that result, the offload names the same
file instead of writing a second copy. A real `-p` process, a real shell."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_process import run_one_shot
from tests.fakes.faulty_openai import FaultyOpenAIServer

COMMAND = "seq 1 200000 | sed 's/^/line number /'"


def _copies(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_large_bash_output_offloaded_under_pressure_is_on_disk_once(
    fake_llm: FaultyOpenAIServer, tmp_path: Path
) -> None:
    fake_llm.add_tool_calls([("bash", json.dumps({"command": COMMAND}))])
    fake_llm.add_text("counted")
    fake_llm.set_fallback("ok")
    working_dir = tmp_path / ".reme"
    proc = run_one_shot(
        fake_llm.base_url,
        working_dir,
        "count the lines",
        "tools.approval=never",
        "max_input_length=4000",
        "memory.tool_result_threshold=400",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "saved to" in proc.stderr or "saved to" in proc.stdout  # it was offloaded
    stored = _copies(working_dir, b"line number 100000\n")  # from the middle: only a whole copy
    assert len(stored) == 1, stored
    assert stored[0].name.endswith(".full.txt")
    # the context's reference leads to that file
    transcript = next((working_dir / "sessions").glob("*.jsonl")).read_text(encoding="utf-8")
    assert stored[0].name in transcript
