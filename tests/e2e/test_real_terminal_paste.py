"""In a real terminal (tmux, bracketed paste): a paste lands once, a long one is summarised with
its real line count and sent in full; a 4 KB file the model reads reaches it whole (issue 21)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_real_terminal import remecli_script
from tests.e2e.tmux_driver import TmuxSession, tmux_available
from tests.fakes.messages import tool_texts

pytestmark = pytest.mark.skipif(
    not tmux_available(), reason="tmux is not installed (.ci/run installs it)"
)


def bracketed_paste(term: TmuxSession, text: str, *, raw: bool) -> None:
    """Paste `text` into the pane with bracketed-paste markers, as a terminal does. Without
    `raw`, tmux turns each LF into CR (what pasting in many terminals sends)."""
    buffer = f"{term.name}-paste"
    subprocess.run(["tmux", "load-buffer", "-b", buffer, "-"], input=text.encode(), check=True)
    flags = ["-p", "-d"] + (["-r"] if raw else [])
    subprocess.run(["tmux", "paste-buffer", *flags, "-b", buffer, "-t", term.name], check=True)


def sent_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_pastes_land_once_and_a_read_file_reaches_the_model_whole(fake_llm, tmp_path: Path) -> None:
    rows = [f"row {n}" for n in range(300)]
    notes = "".join(f"line {n:02d} " + "lorem ipsum dolor sit amet " * 2 + "\n" for n in range(80))
    assert 4_000 < len(notes) < 5_500
    (tmp_path / "notes.txt").write_text(notes)
    for answer in ("short one", "lf block", "cr block", "crlf block"):
        fake_llm.add_text(answer)
    fake_llm.add_tool_calls([("read", {"path": "notes.txt"})])
    fake_llm.add_text("I read all 80 lines.")
    env = {"REME_LLM_API_KEY": "sk-test", "HOME": str(tmp_path), "TERM": "xterm-256color"}
    if "PYTHONPATH" in os.environ:  # the checkout under test, not whatever tmux inherited
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    cmd = [
        remecli_script(),
        "config=cli",
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=fake-model",
        "memory.summarize=false",
        "search.embedding.backend=none",
    ]
    term = TmuxSession(cmd, cwd=tmp_path, env=env)
    try:
        term.wait_for("ready", timeout=60)
        bracketed_paste(term, "hello-paste", raw=True)
        screen = term.wait_for("hello-paste", timeout=10)
        assert "hello-pastehello-paste" not in screen
        term.send("Enter")
        term.wait_for("short one", timeout=30)
        for block, raw, answer in (
            ("\n".join(rows) + "\n", True, "lf block"),
            ("\n".join(rows) + "\n", False, "cr block"),  # tmux sends CR line ends
            ("\r\n".join(rows) + "\r\n", True, "crlf block"),
        ):
            bracketed_paste(term, block, raw=raw)
            screen = term.wait_for("[pasted 300 lines]", timeout=10)
            assert "[pasted 600 lines]" not in screen and "row 299" not in screen
            term.send("Enter")
            term.wait_for(answer, timeout=30)
        term.type("read notes.txt")
        term.wait_for("I read all 80 lines.", timeout=30)
        term.type("/exit")
        term.wait_for("REMECLI-EXITED=0", timeout=30)
    finally:
        term.kill()
    requests = fake_llm.chat_requests()
    assert sent_text(requests[0].body) == "hello-paste"
    assert [sent_text(r.body) for r in requests[1:4]] == ["\n".join(rows)] * 3
    [result] = tool_texts(requests[5].body)
    for number, line in enumerate(notes.splitlines(), start=1):
        assert f"{number}\t{line}" in result  # the whole file, every line
    assert "omitted" not in result
