"""A full disk (issue 25.12 and 25.19), on a real 4 MB tmpfs in a private mount namespace.

Answers keep coming while memory writes wait; the user reads "the disk is full", never a model
error or a traceback; a summary is never claimed to be kept where nothing was written, and the
work that waited is written exactly once when space returns."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.fakes.fake_openai import FakeOpenAIServer
from tests.fakes.memory_model import MemoryAwareModel
from tests.fakes.turns import TextTurn, ToolCall, ToolCallsTurn
from tests.faults.mounts import SmallDisk, need_namespaces, small_disk, wait_for

ANSWER = "the answer is forty-two"


def _remecli(url: str, working_dir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "remecli",
        "config=cli",
        f"llm.base_url={url}",
        "llm.model_name=fake-model",
        "llm.max_retries=0",
        "search.embedding.backend=none",
        "memory.dream.auto=false",
        f"working_dir={working_dir}",
        *args,
    ]


def _env() -> dict[str, str]:
    return {**os.environ, "REME_LLM_API_KEY": "sk-test"}


@contextlib.contextmanager
def _small_disk_and_model(
    tmp_path: Path, model: MemoryAwareModel
) -> Iterator[tuple[SmallDisk, str]]:
    """A small disk (the test is skipped without mount namespaces) and the fake server answering
    as `model`: (the disk, the server's URL)."""
    need_namespaces()
    server = FakeOpenAIServer().start()
    server.set_fallback(model)
    try:
        with small_disk(tmp_path / "disk") as disk:
            yield disk, server.base_url
    finally:
        server.stop()


def _one_shot(
    disk: SmallDisk, url: str, question: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """`remecli -p QUESTION` in the disk's namespace, its working dir on the disk."""
    argv = disk.argv(_remecli(url, disk.mount_point / ".reme", "-p", question))
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=cwd, env=_env())


class _Plain:
    """Plain mode as a real process in the disk's namespace; stdin piped, output collected."""

    def __init__(self, disk: SmallDisk, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            disk.argv(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=cwd,
            env=_env(),
        )
        self.output = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for chunk in iter(lambda: self.proc.stdout.read(1), ""):  # type: ignore[union-attr]
            self.output += chunk

    def say(self, line: str, *, answers: int | None = None) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        if answers is not None:
            assert wait_for(lambda: self.output.count(ANSWER) >= answers, 90), self.output

    def finish(self) -> int:
        self.say("/exit")
        code = self.proc.wait(timeout=120)
        self._reader.join(timeout=10)
        return code


def _said_lines(memory: Path) -> list[str]:
    return [
        line
        for path in sorted(memory.rglob("*.md"))
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.startswith("- said: ")
    ]


def test_one_shot_on_a_full_disk_answers_and_says_the_disk_is_full(tmp_path: Path) -> None:
    with _small_disk_and_model(tmp_path, MemoryAwareModel(ANSWER)) as (disk, url):
        first = _one_shot(disk, url, "a heron question", tmp_path)
        assert first.returncode == 0 and ANSWER in first.stdout, first.stderr
        disk.fill()
        full = _one_shot(disk, url, "please remember: a kingfisher question", tmp_path)  # a card
    assert ANSWER in full.stdout, full.stderr
    assert "the disk is full" in full.stderr, full.stderr
    assert "Traceback" not in full.stderr and "Logging error" not in full.stderr, full.stderr
    assert "Unexpected error talking to" not in full.stderr
    assert not re.search(r"kept in \S*pending", full.stderr)  # no record written: none claimed
    assert re.search(r"saved in \S+/rescued/\S+\.json instead", full.stderr)  # put aside


def test_plain_mode_keeps_answering_and_writes_waiting_work_once_space_returns(
    tmp_path: Path,
) -> None:
    with _small_disk_and_model(tmp_path, MemoryAwareModel(ANSWER)) as (disk, url):
        working_dir = disk.mount_point / ".reme"
        plain = _Plain(disk, _remecli(url, working_dir, "ui=plain"), tmp_path)
        plain.say("tell me about herons", answers=1)
        disk.fill()
        plain.say("tell me about kingfishers", answers=2)
        plain.say("/new")  # hands the conversation to a summary: its record cannot be written
        assert wait_for(lambda: "New conversation started" in plain.output, 60), plain.output
        plain.say("tell me about pelicans", answers=3)
        disk.free()
        plain.say("tell me about ospreys", answers=4)
        code = plain.finish()
        seen = disk.path(working_dir)
        said = _said_lines(seen / "memory")
        transcripts = {
            p.name: p.read_text(encoding="utf-8") for p in (seen / "sessions").glob("*.jsonl")
        }
        pending = list((seen / "sessions" / "pending").glob("*.json"))
    output = plain.output
    assert code == 0, output
    assert "Traceback" not in output and "Logging error" not in output, output
    assert "Unexpected error talking to" not in output, output
    assert "the disk is full" in output, output  # which write meets it first varies
    for animal in ("herons", "kingfishers", "pelicans", "ospreys"):
        # each question summarized exactly once, and in exactly one transcript line
        assert said.count(f"- said: tell me about {animal}") == 1, (animal, said)
        lines = [
            line
            for text in transcripts.values()
            for line in text.splitlines()
            if f"tell me about {animal}" in line and '"role": "user"' in line
        ]
        assert len(lines) == 1, (animal, transcripts)
    assert pending == []


PLACEHOLDER = "- placeholder: a note to fill in later " + "." * 60 + "\n"
MISSED = "- the kingfisher ledger holds opal-7731"  # written while the disk is full
MARKERS = {"placeholder": "fill in later", "kingfisher": "opal-7731"}  # what a hit must hold


class _Searcher(MemoryAwareModel):
    """The model of a user who asks "search WORD": the `memory_search` tool, then "FOUND WORD"
    when a hit holds the word's marker ("MISSING WORD" when not); the rest as
    `MemoryAwareModel` (answers, summaries)."""

    def __call__(self, body: dict):
        last = body["messages"][-1]
        text = last.get("content") if isinstance(last.get("content"), str) else ""
        if last["role"] == "user" and text.startswith("search "):
            word = text.split()[1]
            return ToolCallsTurn([ToolCall("memory_search", json.dumps({"query": word}))])
        call = (body["messages"][-2].get("tool_calls") or [{}])[0].get("function", {})
        if last["role"] == "tool" and call.get("name") == "memory_search":
            word = json.loads(call["arguments"])
            found = MARKERS[word["query"]] in json.dumps(last.get("content"))
            return TextTurn(f"{'FOUND' if found else 'MISSING'} {word['query']}")
        return super().__call__(body)


def test_a_full_disk_while_running_is_not_index_damage(tmp_path: Path) -> None:
    """The disk fills while the app runs; a note changed meanwhile cannot be indexed. The index
    is neither deleted nor rebuilt over the full disk, and the next sync after space returns
    indexes the note that was missed."""
    with _small_disk_and_model(tmp_path, _Searcher(ANSWER)) as (disk, url):
        working_dir = disk.mount_point / ".reme"
        plain = _Plain(disk, _remecli(url, working_dir, "ui=plain"), tmp_path)
        plain.say("tell me about herons", answers=1)
        seen = disk.path(working_dir)
        note = seen / "memory" / "birds.md"
        note.write_text(f"# Birds\n\n{PLACEHOLDER}", encoding="utf-8")
        assert wait_for(lambda: _finds(plain, "placeholder"), 60), plain.output
        store = seen / "index" / "chunks.sqlite"
        assert wait_for(store.exists, 30)
        before = store.stat().st_ino
        disk.fill()
        with note.open("r+", encoding="utf-8") as same_blocks:  # needs no new space
            same_blocks.seek(len("# Birds\n\n"))
            same_blocks.write(MISSED.ljust(len(PLACEHOLDER) - 1) + "\n")
        plain.say("tell me about kingfishers", answers=2)
        _finds(plain, "kingfisher")  # an answer, found or not: the app goes on
        disk.free()
        plain.say("tell me about ospreys", answers=3)  # the next sync: space is back
        assert wait_for(lambda: _finds(plain, "kingfisher"), 60), plain.output
        after = store.stat().st_ino
        log = (seen / "logs" / "remecli.log").read_text(encoding="utf-8", errors="replace")
        code = plain.finish()
    assert code == 0, plain.output
    assert "Traceback" not in plain.output, plain.output
    assert after == before  # the same index, not deleted and made again
    assert "rebuilding" not in log and "rebuilding" not in plain.output, log
    assert "failed" not in plain.output, plain.output  # the summary at exit too
    # said once (if the log could take the line) and once when space was back
    assert log.count("the search index waits for space") <= 1, log
    assert log.count("space is back: the search index is up to date again") == 1, log


def _answers(plain: _Plain, word: str) -> tuple[int, int]:
    """How many searches for `word` the app answered: (found, missing)."""
    return plain.output.count(f"FOUND {word}"), plain.output.count(f"MISSING {word}")


def _finds(plain: _Plain, word: str) -> bool:
    """Ask the app to search `word`; True when this answer found its marker."""
    found, missing = _answers(plain, word)
    plain.say(f"search {word}")
    assert wait_for(lambda: sum(_answers(plain, word)) > found + missing, 90), plain.output
    return _answers(plain, word)[0] > found


def test_a_full_disk_sqlite_reports_is_recognised() -> None:
    """sqlite3 is looked up only once loaded (the TUI's first frame goes without it): an error it
    raised is still a full disk, and a program that never loaded it still checks the rest."""
    import sqlite3

    from remecli.config.disk_full import is_disk_full

    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))
    wrapped = RuntimeError("the index could not be written")
    wrapped.__cause__ = sqlite3.OperationalError("database or disk is full")
    assert is_disk_full(wrapped)
    assert not is_disk_full(ValueError("no such column"))
