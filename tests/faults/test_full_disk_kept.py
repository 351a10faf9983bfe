"""What a full disk kept in memory is never lost (issue 39.1), on a real 2 MB tmpfs in a private
mount namespace, 12 KB left or none: the messages reach the transcript and the conversation's
card once there is room — in the same session when space comes back before the exit, else from
the file they were put aside in at exit (outside the full disk), at the next start — and the
user reads where they went each time. A `-p` whose transcript cannot be written says where its
messages are and exits non-zero."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.fakes.fake_openai import FakeOpenAIServer
from tests.fakes.memory_model import MemoryAwareModel
from tests.faults.mounts import SmallDisk, need_namespaces, small_disk, wait_for
from tests.faults.test_disk_full import ANSWER, _one_shot, _Plain, _remecli

PAD = " " + "words the user typed " * 150  # ~3 KB a question: the transcript needs new pages
BIRDS = ("herons", "kingfishers", "pelicans")  # herons before the disk fills
LEFT = [pytest.param(12 << 10, id="12KB-left"), pytest.param(0, id="nothing-left")]


def _question(bird: str) -> str:
    return f"tell me about {bird}{PAD}"


def _said_in_transcripts(sessions: Path, bird: str) -> int:
    """How many transcript lines hold the user's question about `bird`."""
    return sum(
        1
        for path in sessions.glob("*.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
        if f"tell me about {bird}" in line and '"role": "user"' in line
    )


def _in_card(memory: Path, bird: str) -> int:
    """How many card lines record the question about `bird` (the fake card model writes one
    `- said: …` Timeline line per user line it was given)."""
    return sum(
        1
        for path in memory.rglob("talk-*.md")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith(f"- said: tell me about {bird}")
    )


def _summarized(server: FakeOpenAIServer, bird: str) -> int:
    """How many summaries the fake model was asked for that held the question about `bird`
    (the first request of each: the conversation to save is its last message)."""
    return sum(
        1
        for request in server.chat_requests()
        if "Conversation to save" in json.dumps(request.body["messages"][-1])
        and f"user: tell me about {bird}" in json.dumps(request.body["messages"][-1])
    )


def _start(disk: SmallDisk, url: str, tmp_path: Path) -> _Plain:
    return _Plain(disk, _remecli(url, disk.mount_point / ".reme", "ui=plain"), tmp_path)


def _ask(plain: _Plain, birds: tuple[str, ...], answered: int) -> int:
    for bird in birds:
        answered += 1
        plain.say(_question(bird), answers=answered)
    return answered


@pytest.fixture
def model_server():
    server = FakeOpenAIServer().start()
    server.set_fallback(MemoryAwareModel(ANSWER))
    yield server
    server.stop()


@pytest.mark.parametrize("leave", LEFT)
def test_a_conversation_ended_on_a_full_disk_is_put_back_at_the_next_start(
    tmp_path: Path, model_server: FakeOpenAIServer, leave: int
) -> None:
    need_namespaces()
    url = model_server.base_url
    with small_disk(tmp_path / "disk", "2m") as disk:
        first = _start(disk, url, tmp_path)
        _ask(first, BIRDS[:1], 0)
        disk.fill(leave)
        _ask(first, BIRDS[1:], 1)
        assert first.finish() == 0, first.output  # quit while the disk is still full
        disk.free()
        second = _start(disk, url, tmp_path)
        _ask(second, ("ospreys",), 0)
        assert second.finish() == 0, second.output
        seen = disk.path(disk.mount_point / ".reme")
        said = {bird: _said_in_transcripts(seen / "sessions", bird) for bird in BIRDS}
        cards = {bird: _in_card(seen / "memory", bird) for bird in BIRDS}
        pending = list((seen / "sessions" / "pending").glob("*.json"))
    assert "could not be recorded" not in first.output
    put_aside = re.search(r"saved in (\S+/rescued/\S+\.json) instead", first.output)
    assert put_aside, first.output  # told where they are while the disk is full
    assert not os.path.exists(put_aside.group(1))  # put back, then removed
    assert "kept in memory while the disk was full are now saved in" in second.output
    assert said == {bird: 1 for bird in BIRDS}, (said, second.output)
    assert cards == {bird: 1 for bird in BIRDS}, (cards, second.output)
    assert {bird: _summarized(model_server, bird) for bird in BIRDS} == {b: 1 for b in BIRDS}
    assert pending == []


@pytest.mark.parametrize("leave", LEFT)
def test_space_freed_before_the_exit_saves_what_waited_and_says_where(
    tmp_path: Path, model_server: FakeOpenAIServer, leave: int
) -> None:
    need_namespaces()
    with small_disk(tmp_path / "disk", "2m") as disk:
        plain = _start(disk, model_server.base_url, tmp_path)
        _ask(plain, BIRDS[:1], 0)
        disk.fill(leave)
        _ask(plain, BIRDS[1:], 1)
        disk.free()
        assert plain.finish() == 0, plain.output  # no turn after the space came back
        seen = disk.path(disk.mount_point / ".reme")
        said = {bird: _said_in_transcripts(seen / "sessions", bird) for bird in BIRDS}
        cards = {bird: _in_card(seen / "memory", bird) for bird in BIRDS}
        transcripts = [p.name for p in (seen / "sessions").glob("*.jsonl")]
    assert "do not quit before" in plain.output, plain.output
    saved = re.search(
        r"the (\d+) message\(s\) kept in memory while the disk was full are now "
        r"saved in (\S+\.jsonl)",
        plain.output,
    )
    assert saved, plain.output
    assert Path(saved.group(2)).name in transcripts and int(saved.group(1)) >= 1
    assert said == {bird: 1 for bird in BIRDS}, said
    assert cards == {bird: 1 for bird in BIRDS}, cards
    assert {bird: _summarized(model_server, bird) for bird in BIRDS} == {b: 1 for b in BIRDS}


def test_a_one_shot_on_a_full_disk_says_where_its_question_is_and_exits_non_zero(
    tmp_path: Path, model_server: FakeOpenAIServer
) -> None:
    need_namespaces()
    url = model_server.base_url
    with small_disk(tmp_path / "disk", "2m") as disk:
        first = _one_shot(disk, url, "tell me about herons", tmp_path)
        disk.fill()
        full = _one_shot(disk, url, _question("kingfishers"), tmp_path)
        disk.free()
        later = _one_shot(disk, url, "tell me about ospreys", tmp_path)
        seen = disk.path(disk.mount_point / ".reme")
        said = {b: _said_in_transcripts(seen / "sessions", b) for b in ("kingfishers", "ospreys")}
    assert first.returncode == 0, first.stderr
    assert ANSWER in full.stdout, full.stderr  # answered all the same
    assert full.returncode != 0, full.stderr  # but not saved where it was asked to be
    assert "do not quit before" not in full.stderr  # a -p cannot wait: it says what happens
    put_aside = re.search(r"saved in (\S+/rescued/\S+\.json) instead", full.stderr)
    assert put_aside, full.stderr
    assert later.returncode == 0, later.stderr
    assert "kept in memory while the disk was full are now saved in" in later.stderr
    assert said == {"kingfishers": 1, "ospreys": 1}, (said, later.stderr)
    assert not os.path.exists(put_aside.group(1))


def test_a_summary_that_waited_for_space_runs_at_the_turn_that_finds_room(
    tmp_path: Path, model_server: FakeOpenAIServer
) -> None:
    """`/new` on a full disk: its summary cannot be recorded and waits in memory; the first
    turn after space is back writes what waited and starts it then, not only at the exit
    (a crash meanwhile would lose it)."""
    need_namespaces()
    with small_disk(tmp_path / "disk", "2m") as disk:
        plain = _start(disk, model_server.base_url, tmp_path)
        _ask(plain, BIRDS[:1], 0)
        disk.fill()
        _ask(plain, BIRDS[1:2], 1)
        plain.say("/new")
        assert wait_for(lambda: "New conversation started" in plain.output, 60), plain.output
        disk.free()
        _ask(plain, BIRDS[2:], 2)
        memory = disk.path(disk.mount_point / ".reme" / "memory")
        summarized = wait_for(lambda: _in_card(memory, "kingfishers") == 1, 90)
        assert plain.finish() == 0, plain.output
    assert summarized, plain.output  # before the exit
    assert "kept in memory while the disk was full are now saved in" in plain.output
