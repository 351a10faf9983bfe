"""The agentic QA harness (benchmarks/agentic_qa.py) end to end on a tiny LoCoMo-shaped file,
against the scripted fake server: memory built, real memory tools called, judged, reported."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchmarks import agentic_qa
from tests.fakes import FakeOpenAIServer
from tests.fakes.messages import content_text
from tests.fakes.turns import TextTurn, ToolCallsTurn, make_tool_calls

SAMPLE = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I started pottery classes yesterday."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! Which studio?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "The Clayhouse studio on Elm Street."},
        ],
        "session_2_date_time": "10:00 am on 20 May, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "My sister Lea moved to Porto."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Porto is lovely in spring."},
        ],
    },
    "qa": [
        {"question": "Where does Ana take pottery classes?", "answer": "Clayhouse studio",
         "evidence": ["D1:3"], "category": 4},
        {"question": "When did Ana start pottery?", "answer": "7 May 2023",
         "evidence": ["D1:1"], "category": 2},
        {"question": "Where did Ben's sister move?", "answer": "Porto",
         "evidence": ["D2:1"], "category": 4},
        {"question": "What is Ana's cat called?", "adversarial_answer": "Miso",
         "evidence": [], "category": 5},
    ],
}  # fmt: skip
ANSWERS = {  # what the scripted agent answers after reading (the second one is wrong)
    "Where does Ana take pottery classes?": "At the Clayhouse studio on Elm Street.",
    "When did Ana start pottery?": "On 8 May 2023.",
    "Where did Ben's sister move?": "Lea moved to Porto.",
}


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [content_text(m) for m in body["messages"] if m["role"] == "tool"]


def scripted_model(body: dict[str, Any]) -> Any:
    """The agent: search → links on the first hit → read it → answer; the judge: compares."""
    if not body.get("tools"):
        prompt = content_text(body["messages"][-1])
        gold = re.search(r"Gold answer: (.*)", prompt).group(1)  # type: ignore[union-attr]
        given = re.search(r"Answer given: (.*)", prompt).group(1)  # type: ignore[union-attr]
        return TextTurn(json.dumps({"correct": gold.lower() in given.lower()}))
    question = next(content_text(m) for m in body["messages"] if m["role"] == "user")
    results = tool_messages(body)
    if not results:
        return ToolCallsTurn(make_tool_calls([("memory_search", {"query": question})]))
    top = json.loads(results[0])[0]["path"]
    if len(results) == 1:
        return ToolCallsTurn(make_tool_calls([("memory_links", {"path": top})]))
    if len(results) == 2:
        return ToolCallsTurn(make_tool_calls([("read", {"path": top})]))
    return TextTurn(ANSWERS[question])


def test_the_harness_answers_with_memory_tools_and_reports_per_type(
    fake_llm: FakeOpenAIServer, tmp_path: Path, capsys
) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    fake_llm.set_fallback(scripted_model)
    out = tmp_path / "answers.jsonl"
    code = agentic_qa.main(
        [
            f"--data={data}",
            f"--workdir={tmp_path / 'work'}",
            f"--base-url={fake_llm.base_url}",
            "--model=fake-model",
            "--api-key=sk-secret",
            "--embedding=none",
            "--max-steps=5",
            f"--out={out}",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    memory = tmp_path / "work" / "tiny-1" / "memory"
    card = (memory / "2023-05-08" / "session-01.md").read_text(encoding="utf-8")
    assert card.startswith("---\nname: Session 1 (1:56 pm on 8 May, 2023)\n")
    assert "- Ana: The Clayhouse studio on Elm Street." in card
    assert "[[memory/2023-05-20/session-02.md|" in (memory / "2023-05-20.md").read_text()

    agent_requests = [r.body for r in fake_llm.chat_requests() if r.body.get("tools")]
    offered = {tool["function"]["name"] for tool in agent_requests[0]["tools"]}
    assert offered == {"memory_search", "memory_links", "read"}  # the memory tools only
    finals = [b for b in agent_requests if len(tool_messages(b)) == 3]
    assert len(finals) == 3  # the adversarial question (category 5) is not asked by default
    for body in finals:
        search, links, read = tool_messages(body)
        path = json.loads(search)[0]["path"]
        assert path.startswith("memory/2023-05-") and path.endswith(".md")
        assert "memory/2023-05-" in links and ".md" in links  # the day page links the card
        assert "- Ana:" in read or "- Ben:" in read  # the real `read` of the built note
    judged = [r.body for r in fake_llm.chat_requests() if not r.body.get("tools")]
    assert len(judged) == 3 and all("response_format" in b for b in judged)

    assert re.search(r"^2 temporal\s+1\s+0\.000", printed, re.M), printed
    assert re.search(r"^4 single-hop\s+2\s+1\.000\s+\d+\s+\d+\s+3\.00", printed, re.M), printed
    assert re.search(r"^all\s+3\s+0\.667", printed, re.M), printed
    assert "tool calls in all: memory_links 3, memory_search 3, read 3" in printed
    assert "--api-key=***" in printed and "sk-secret" not in printed
    assert "reproduce: PYTHONPATH=. python benchmarks/agentic_qa.py --data=" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["correct"] for r in rows] == [False, True, True]  # one per type in turn
    assert all(r["input_tokens"] > 0 and r["tool_calls"]["read"] == 1 for r in rows)
