"""What `remecli -p` loads before it asks the model, and how it ends (a real process, the fake
model server): only what answering needs is imported before the model call, and a finished
answer exits without freeing the interpreter's modules one by one, at-exit handlers still run.

agentscope (and the mcp, openai and uvicorn it imports itself) is the agent loop an answer runs
on, so it is loaded; benchmarks/oneshot.py measures it as the floor. The packages it imports but
an answer does not use (remecli.llm.deferred_imports) are imported without their code running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import FREED_AT_TEARDOWN

PROBE = (
    FREED_AT_TEARDOWN
    + r"""
import atexit, json, os, sys

out = os.environ["PROBE_OUT"]
port = int(os.environ["PROBE_PORT"])
seen = {}


def at_model_call(event, args):
    if event == "socket.connect" and "modules" not in seen:
        address = args[1]
        if isinstance(address, tuple) and address[1] == port:
            seen["modules"] = sorted(sys.modules)


def ran(module):  # its code has run: exec() puts __builtins__ into a module's namespace
    try:
        return "__builtins__" in object.__getattribute__(module, "__dict__")
    except AttributeError:  # not a module of Python code (a cffi library)
        return False


def at_exit():
    ran_by_exit = sorted(name for name, module in list(sys.modules.items()) if ran(module))
    with open(out, "w") as handle:
        json.dump({"before_answer": seen.get("modules", []), "ran_by_exit": ran_by_exit}, handle)


sys.addaudithook(at_model_call)
atexit.register(at_exit)
marker = FreedAtTeardown(out + ".teardown")
sys.argv = ["remecli", *sys.argv[1:]]
from remecli.__main__ import main

sys.exit(main())
"""
)

NOT_BEFORE_THE_ANSWER = (
    "tavily",  # web_search imports it when it searches
    "httpx",  # only tavily's client
    "remecli.knowledge.dream",  # dream runs in a session, never in -p
    "remecli.ops.dream_jobs",  # operations the memory tools do not call: loaded by the registry
    "remecli.ops.history_jobs",
    "remecli.ops.vector_bulk_jobs",
    "remecli.ops.file_jobs",
    "fastapi",
    "remecli.surfaces.http_api",
    "remecli.surfaces.mcp_server",
    "chromadb",
    "onnxruntime",  # the local embedder: at the first search
    "faiss",
    "textual",
    "prompt_toolkit",
)


def _run_probe(fake_llm, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "modules.json"
    fake_llm.add_text("Forty-two.")
    fake_llm.set_fallback(NOTHING_MARKER)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            "config=cli",
            f"llm.base_url={fake_llm.base_url}",
            "llm.model_name=fake-model",
            "search.embedding.backend=none",
            f"working_dir={tmp_path / '.reme'}",
            "-p",
            "what is six times seven",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        env={
            **os.environ,
            "REME_LLM_API_KEY": "sk-test",
            "PROBE_OUT": str(out),
            "PROBE_PORT": str(fake_llm.base_url.split(":")[2].split("/")[0]),
        },
    )
    return proc, out


def test_one_shot_loads_what_answering_needs_and_exits_without_teardown(
    fake_llm, tmp_path: Path
) -> None:
    proc, out = _run_probe(fake_llm, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Forty-two."
    assert out.exists(), "the at-exit handlers ran"
    loaded = set(json.loads(out.read_text(encoding="utf-8"))["before_answer"])
    assert "remecli.agent.assistant" in loaded  # the snapshot is the answer's own model call
    early = [name for name in NOT_BEFORE_THE_ANSWER if name in loaded]
    assert not early, f"imported before the model call by -p: {early}"
    assert not Path(f"{out}.teardown").exists(), "the interpreter was torn down module by module"
    log = tmp_path / ".reme" / "logs" / "remecli.log"
    assert "chat/completions" in log.read_text(encoding="utf-8")  # the log was flushed


def test_one_shot_never_runs_the_packages_the_runtime_imports_but_does_not_use(
    fake_llm, tmp_path: Path
) -> None:
    proc, out = _run_probe(fake_llm, tmp_path)
    assert proc.returncode == 0, proc.stderr
    ran = set(json.loads(out.read_text(encoding="utf-8"))["ran_by_exit"])
    assert "agentscope.agent" in ran and "openai" in ran  # the probe sees what did run
    assert not {"numpy", "requests", "trio"} & ran, "imported by agentscope, unused by an answer"
