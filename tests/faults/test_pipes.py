"""The command line as a shell user meets it: output piped into `head` ends quietly (no
BrokenPipeError traceback, exit 141), and a command that did nothing says what to do and fails
(real processes, real pipes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from remecli.notes.layout import WorkingDir


def shell(command: str, cwd) -> tuple[str, str, int]:
    """`command` under bash; (stdout, stderr, exit code of the first command of the pipe)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REME_")}
    done = subprocess.run(
        ["bash", "-c", f"{command}; exit ${{PIPESTATUS[0]}}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout, done.stderr, done.returncode


@pytest.fixture
def busy_memory(tmp_path):
    """A working dir with much to print: 3,000 linked bullets and 300 transcripts."""
    layout = WorkingDir(tmp_path / ".reme").ensure()
    bullets = "".join(f"- atlas fact {n} [[memory/topic-{n}.md]]\n" for n in range(3000))
    layout.memory_md.write_text(f"# Memory\n\n{bullets}", encoding="utf-8")
    for n in range(300):
        line = json.dumps({"role": "user", "content": f"hello {n}", "id": f"m{n}"}) + "\n"
        layout.transcript_file(f"s{n:04d}").write_text(line, encoding="utf-8")
    return layout.root


@pytest.mark.parametrize(
    "command",
    [
        "links MEMORY.md",
        "links --dangling",
        "search atlas --max 50",
        "sessions",
    ],
)
def test_output_piped_into_head_ends_quietly(busy_memory, tmp_path, command) -> None:
    remecli = f"{sys.executable} -m remecli {command} working_dir={busy_memory} "
    remecli += "search.embedding.backend=none"
    for reader in ("head -1", "true"):  # reads one line / reads nothing at all
        out, err, code = shell(f"{remecli} | {reader}", tmp_path)
        assert "Traceback" not in err and "BrokenPipe" not in err and "Exception" not in err, err
        assert code in (0, 141), (command, reader, code, err)
    assert out == ""


def test_a_group_alone_and_a_delete_of_nothing_say_what_to_do(tmp_path) -> None:
    wd = f"working_dir={tmp_path / '.reme'}"
    python = f"{sys.executable} -m remecli"
    _out, err, code = shell(f"{python} memory", tmp_path)
    assert code == 2 and "remecli memory: needs a command: history, restore" in err, err
    _out, err, code = shell(f"{python} memory {wd}", tmp_path)
    assert code == 2 and "needs a command before the settings: history, restore" in err, err
    _out, err, code = shell(f"{python} memories delete nosuchid {wd}", tmp_path)
    assert code == 1 and "matched no memory; `remecli memories list` shows the ids" in err, err
    _out, err, code = shell(f"{python} memroy history MEMORY.md {wd}", tmp_path)
    assert code == 2 and "'memroy' is not a command (did you mean memory?)" in err, err
