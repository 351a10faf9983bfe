"""Issue 41 end to end: a fact the user corrects in chat ("actually I moved to Berlin") goes
through the card summarizer and Auto Dream's CORRECT to the digest, MEMORY.md, the next
session's system prompt and `memory_search` (now and `as_of` a day before the move).

Every step is the real one (ChatSession, its summary at close, `/dream`, the agent's
`memory_search` tool) against the scripted fake OpenAI server; only the dream's judgement is
scripted, as in the dream tests. The first conversation happened weeks ago: its summary's day is
the only thing moved back (the clock of the summary tasks).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from remecli.knowledge.background import tasks as background
from remecli.notes.claims import parse_claims
from tests.agent.test_chat_session import new_session, read_until_handled
from tests.dream.conftest import extraction, receipt, unit
from tests.fakes.messages import content_text, tool_texts

TODAY = dt.date.today()
MOVED_IN = TODAY - dt.timedelta(days=40)  # the first conversation's day
BEFORE_MOVE = TODAY - dt.timedelta(days=20)
NODE = "digest/personal/where-the-user-lives.md"
MUNICH = "The user lives in Munich"
BERLIN = "The user lives in Berlin"
SUMMARIZE = ("memory.summarize=true",)


class _DaysAgo(dt.date):
    """`datetime.date` whose today() is MOVED_IN."""

    @classmethod
    def today(cls) -> _DaysAgo:
        return cls.fromordinal(MOVED_IN.toordinal())


def _clock_moved_back() -> SimpleNamespace:
    """The `datetime` module as the summary tasks see it, weeks ago."""
    return SimpleNamespace(**{**vars(dt), "date": _DaysAgo})


def _node_text(claim: str, card: str, *more: str) -> str:
    sources = "".join(f"- Told in [[{c}]].\n" for c in (card, *more))
    return (
        f"---\nname: Where the user lives\ndescription: {claim}\n---\n{claim}.\n\n"
        f"## Sources\n{sources}"
    )


def _system_text(body: dict) -> str:
    assert body["messages"][0]["role"] == "system"
    return content_text(body["messages"][0])


async def _say(session, text: str) -> list:
    session.submit(text)
    return await read_until_handled(session)


def _card_of(root: Path, day: dt.date) -> str:
    [card] = (root / "memory" / f"{day:%Y-%m-%d}").glob("talk-*.md")
    return card.relative_to(root).as_posix()


async def test_a_correction_in_chat_wins_in_memory_prompt_and_search(
    fake_llm, memory_model, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / ".reme"

    # 1. weeks ago: "I live in Munich", summarized into a card of that day at the exit
    with monkeypatch.context() as weeks_ago:
        weeks_ago.setattr(background, "dt", _clock_moved_back())
        first = new_session(fake_llm, tmp_path, *SUMMARIZE)
        await _say(first, "I live in Munich")
        await first.close()
    munich_card = _card_of(root, MOVED_IN)
    assert "I live in Munich" in (root / munich_card).read_text()

    # 2. today: a dream first consolidates that card (CREATE), then "actually I moved to Berlin"
    second = new_session(fake_llm, tmp_path, *SUMMARIZE)
    fake_llm.add_text(extraction([unit("Where the user lives", "personal", MUNICH, munich_card)]))
    fake_llm.add_tool_calls([("search_digest", {"query": "where the user lives"})])
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": _node_text(MUNICH, munich_card)})])
    fake_llm.add_text(receipt("CREATE", NODE))
    await _say(second, "/dream")
    assert f"{MUNICH}." in (root / NODE).read_text()
    await _say(second, "actually I moved to Berlin")
    await second.close()
    berlin_card = _card_of(root, TODAY)
    assert "actually I moved to Berlin" in (root / berlin_card).read_text()

    # 3. the next dream corrects the node (the model's judgement scripted, the rest real)
    third = new_session(fake_llm, tmp_path, *SUMMARIZE)
    old_text = (root / NODE).read_text()
    fake_llm.add_text(extraction([unit("Where the user lives", "personal", BERLIN, berlin_card)]))
    fake_llm.add_tool_calls([("read", {"path": NODE})])
    staged = _node_text(BERLIN, munich_card, berlin_card)
    fake_llm.add_tool_calls([("write", {"path": NODE, "content": staged})])
    fake_llm.add_text(
        json.dumps({"action": "CORRECT", "path": NODE, "note": MUNICH, "claim": BERLIN})
    )
    await _say(third, "/dream")
    await third.close()
    node = (root / NODE).read_text()
    assert node != old_text
    since, moved = MOVED_IN.isoformat(), TODAY.isoformat()
    assert f"- {BERLIN} (since {moved}) [[{berlin_card}]]" in node
    assert f'- ~~{MUNICH}~~ ({since} to {moved}, replaced by "{BERLIN}") [[{munich_card}]]' in node
    assert [c.text for c in parse_claims(node) if c.holds_on(BEFORE_MOVE)] == [MUNICH]
    memory_md = (root / "MEMORY.md").read_text()
    assert f"{BERLIN} (since {moved})" in memory_md and "Munich" not in memory_md

    # 4. the next session: the prompt knows Berlin only; memory_search knows time
    fourth = new_session(fake_llm, tmp_path, *SUMMARIZE)
    fake_llm.clear()
    fake_llm.add_tool_calls([("memory_search", {"query": "where does the user live"})])
    fake_llm.add_tool_calls(
        [("memory_search", {"query": "where does the user live", "as_of": BEFORE_MOVE.isoformat()})]
    )
    fake_llm.add_text("You live in Berlin (Munich before).")
    await _say(fourth, "where do I live?")
    await fourth.close()
    requests = [
        r.body
        for r in fake_llm.chat_requests()
        if _system_text(r.body).startswith("You are ReMe")  # the agent's, not the summarizer's
    ]
    prompt = _system_text(requests[0])
    known = prompt[prompt.index("## MEMORY.md") : prompt.index("## Using long-term memory")]
    assert f"{BERLIN} (since {moved})" in known and "Munich" not in known
    now_hits, then_hits = (json.loads(text) for text in tool_texts(requests[-1]))
    top = now_hits[0]
    assert [c["text"] for c in top["claims"] if c["valid"]] == [BERLIN], now_hits
    munich_hits = [h for h in now_hits if h["path"] == munich_card]
    assert munich_hits and munich_hits[0]["superseded"]["replaced_by"] == BERLIN
    assert munich_hits[0]["superseded"]["until"] == moved
    assert now_hits.index(munich_hits[0]) > now_hits.index(top)
    valid_then = [c["text"] for c in then_hits[0].get("claims", []) if c["valid"]]
    assert valid_then == [MUNICH], then_hits[0]
