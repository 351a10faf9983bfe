"""A summary that saved nothing because its `write` was refused (a card whose frontmatter is not
valid YAML) says so, with the error the model got — not "does it support tool calls?"."""

from __future__ import annotations

from remecli.knowledge.summary.summarizer import Summarizer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user

BROKEN = "---\nname: [Staging database\ndescription: pg-stage-7\n---\n# Staging\n\n## Timeline\n"


async def test_a_refused_write_is_named_as_the_cause(fake_llm, tmp_path, working_dir) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    card = "memory/2025-01-31/staging-database.md"
    fake_llm.add_tool_calls([("write", {"path": card, "content": BROKEN})])
    fake_llm.add_text("I saved the card.")
    talk = [user("our staging database is pg-stage-7", "09:12"), assistant("Noted.", "09:12")]
    result = await summarizer.summarize(talk, date=DAY, session_id="s1", lines=(1, 2))
    assert result.status == "failed", result
    assert "tool calls" not in result.detail  # was: "(does it support tool calls?)"
    assert f"`write` of {card} was refused (The frontmatter is not valid YAML" in result.detail
