"""`remember_conversation`: the hook the assistant calls with its own (agentscope) messages."""

from __future__ import annotations

from agentscope.message import AssistantMsg, TextBlock, ToolCallBlock, ToolResultBlock, UserMsg

from remecli.vector import remember_conversation
from tests.vector.helpers import facts, make_reme, user_prompt


async def test_a_conversation_becomes_personal_and_tool_memory(fake_ai, tmp_path) -> None:
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}).start()
    messages = [
        UserMsg(
            name="user", content="I'm Carol. Run the test suite.", created_at="2026-03-02T09:00:00"
        ),
        AssistantMsg(
            name="ReMe",
            content=[
                TextBlock(text="Running it."),
                ToolCallBlock(id="c1", name="bash", input='{"command": "pytest", "timeout": 120}'),
                ToolResultBlock(id="c1", name="bash", output="error: timed out after 120 s"),
                ToolCallBlock(id="c2", name="bash", input='{"command": "pytest", "timeout": 600}'),
                ToolResultBlock(id="c2", name="bash", output="412 passed"),
            ],
            created_at="2026-03-02T09:05:00",
        ),
    ]
    fake_ai.add_text(facts("Carol wants the full test suite run before merging"))
    fake_ai.add_text(facts("bash: pytest needs timeout=600; 120 s times out"))
    changed = await remember_conversation(reme, messages, user_name="carol")
    added = {(n.memory_type, n.memory_target, n.content) for n in changed if n.action == "add"}
    assert ("personal", "carol", "Carol wants the full test suite run before merging") in added
    assert ("tool", "bash", "bash: pytest needs timeout=600; 120 s times out") in added
    personal, tool = (user_prompt(r.body) for r in fake_ai.chat_requests())
    assert "[2026-03-02 09:00:00] user: I'm Carol. Run the test suite." in personal
    assert 'tool "bash"' in tool and "→ tool call bash(" in tool and "timed out after 120 s" in tool
    await reme.close()


async def test_extraction_asks_for_structured_output(fake_ai, tmp_path) -> None:
    # a 1.5B local model asked in words answered "<nothing to store>" for a decision and a fact;
    # a server with structured output holds it to the extraction's JSON array
    reme = await make_reme(fake_ai, tmp_path, {"backend": "local"}).start()
    said = [
        UserMsg(
            name="user", content="I adopted a cat called Miso.", created_at="2026-03-06T14:03:00"
        )
    ]
    fake_ai.add_text('[{"content": "dana adopted a cat called Miso", "when_to_use": "pets"}]')
    changed = await remember_conversation(reme, said, user_name="dana")
    added = [n.content for n in changed if n.action == "add" and n.memory_type == "personal"]
    assert added == ["dana adopted a cat called Miso"]
    asked = fake_ai.chat_requests()[0].body["response_format"]
    assert asked["type"] == "json_schema" and asked["json_schema"]["schema"]["type"] == "array"
    await reme.close()
