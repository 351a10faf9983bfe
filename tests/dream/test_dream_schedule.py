"""One dream at a time (a lock across processes), when a dream is due, interests, languages."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import yaml

from remecli.knowledge.dream.interests import interests_file, render_interests
from remecli.knowledge.dream.runner import dream, dream_due
from remecli.knowledge.dream.state import state_dir
from tests.dream.conftest import add_card, extraction, make_settings, receipt, unit
from tests.fakes.messages import content_text

DAY = dt.date(2025, 1, 31)
NODE = "digest/personal/tabs-not-spaces.md"
NODE_TEXT = (
    "---\nname: Tabs not spaces\ndescription: The user indents Go code with tabs.\n---\n"
    "The user wants tabs in Go code.\n\n## Sources\n- Said in [[memory/2025-01-31/style.md]].\n"
)
HOLD_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


async def test_one_dream_at_a_time_across_processes(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    state_dir(working_dir).mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(state_dir(working_dir) / "lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = await dream(settings, working_dir, date=DAY)
        assert result.status == "busy" and "another dream is running" in result.message
        assert fake_llm.chat_requests() == []
    finally:
        holder.communicate("\n", timeout=30)
    fake_llm.add_text(extraction([], skipped=["memory/2025-01-31/style.md"]))
    result = await dream(settings, working_dir, date=DAY)
    assert result.status == "nothing", result
    assert len(fake_llm.chat_requests()) == 1


async def test_dream_due(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    assert not dream_due(settings, working_dir)  # no card at all
    card = add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    assert dream_due(settings, working_dir)  # never dreamt, a new card
    fake_llm.add_text(extraction([unit("Tabs not spaces", "personal", "tabs in Go", card)]))
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
    fake_llm.add_text(receipt("CREATE", NODE))
    assert (await dream(settings, working_dir, date=DAY)).status == "done"
    later = dt.datetime.now().astimezone() + dt.timedelta(hours=25)
    assert not dream_due(settings, working_dir)  # dreamt just now
    assert not dream_due(settings, working_dir, now=later)  # a day later, but nothing new
    add_card(working_dir, DAY, "editor", "Editor", "The user edits with helix, not vim.")
    assert not dream_due(settings, working_dir)  # new card, but the interval has not passed
    assert dream_due(settings, working_dir, now=later)
    settings = settings.with_changes({"memory.dream.interval_hours": 0.001})
    assert dream_due(
        settings, working_dir, now=dt.datetime.now().astimezone() + dt.timedelta(minutes=1)
    )


async def test_interests_written_without_repeats(fake_llm, tmp_path, working_dir):
    settings = make_settings(fake_llm, tmp_path)
    card = add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    earlier = interests_file(working_dir, DAY - dt.timedelta(days=3))
    earlier.parent.mkdir(parents=True)
    earlier.write_text(yaml.safe_dump({"topics": [{"title": "Go formatting"}]}))
    suggested = [
        {"title": "go  FORMATTING", "reason": "seen 3 days ago", "keywords": ["go"]},
        {
            "title": "Helix editor",
            "reason": "keeps coming up",
            "evidence": [card],
            "keywords": ["helix"],
        },
        {"title": "Atlas release", "reason": "a date was set", "evidence": ["memory/nope.md"]},
        {"title": "Tabs in YAML", "reason": "open question", "keywords": "yaml"},
        {"title": "Fourth new one", "reason": "too many"},
    ]
    fake_llm.add_text(extraction([], skipped=[card], interests=suggested))
    result = await dream(settings, working_dir, date=DAY)
    assert result.interests_file == interests_file(working_dir, DAY)
    data = yaml.safe_load(result.interests_file.read_text())
    assert [t["title"] for t in data["topics"]] == ["Helix editor", "Atlas release", "Tabs in YAML"]
    assert data["topics"][0] == {
        "title": "Helix editor",
        "reason": "keeps coming up",
        "evidence": [card],
        "keywords": ["helix"],
    }
    assert data["topics"][1]["evidence"] == []  # a path that is not one of the cards is dropped
    extraction_system = content_text(fake_llm.chat_requests()[0].body["messages"][0])
    assert '"Go formatting"' in extraction_system  # recent titles are named to the model
    shown = render_interests(working_dir, "", today=DAY)
    assert shown.splitlines()[0] == "Topics worth following (2025-01-31):"
    assert "1. Helix editor — keeps coming up" in shown and f"[[{card}]]" in shown
    assert render_interests(working_dir, "zh", today=DAY).startswith("值得跟进的话题（2025-01-31）")
    empty = render_interests(working_dir, "", today=DAY + dt.timedelta(days=400))
    assert "No interests yet" in empty


async def test_prompts_follow_the_language(fake_llm, tmp_path, working_dir):
    card = add_card(working_dir, DAY, "style", "Style", "The user indents Go code with tabs.")
    for language, extract_words, integrate_words in (
        ("", "You consolidate a user's memory", "You maintain the digest"),
        ("zh", "你负责整理用户的记忆", "你负责维护用户记忆的知识摘要"),
    ):
        fake_llm.clear()
        (state_dir(working_dir) / "catalog.json").unlink(missing_ok=True)
        (working_dir.root / NODE).unlink(missing_ok=True)
        settings = make_settings(fake_llm, tmp_path, language=language)
        fake_llm.add_text(extraction([unit("Tabs not spaces", "personal", "tabs", card)]))
        fake_llm.add_tool_calls([("write", {"path": NODE, "content": NODE_TEXT})])
        fake_llm.add_text(receipt("CREATE", NODE))
        assert (await dream(settings, working_dir, date=DAY)).status == "done"
        requests = fake_llm.chat_requests()
        assert extract_words in content_text(requests[0].body["messages"][0])
        assert integrate_words in content_text(requests[1].body["messages"][0])
