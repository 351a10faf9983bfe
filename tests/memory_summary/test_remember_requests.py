"""An explicit "please remember" reaches MEMORY.md and the card writer is told it matters (the
1.5B local model judged such a conversation "[nothing to store]" and MEMORY.md stayed empty)."""

from __future__ import annotations

from remecli.knowledge.memory_md.block import BLOCK_END, BLOCK_START
from remecli.knowledge.memory_md.remember import remember_requests
from remecli.knowledge.summary.summarizer import Summarizer
from tests.memory_summary.conftest import DAY, assistant, make_settings, user
from tests.memory_summary.test_card_in_answer import ANSWERED

STAGING = (
    "please remember: our staging database is pg-stage-7 in Frankfurt, we deploy on Fridays "
    "with make ship"
)
FACT = "our staging database is pg-stage-7 in Frankfurt, we deploy on Fridays with make ship"


def test_requests_are_the_users_words_and_questions_are_not_requests() -> None:
    said = [
        user(STAGING, "09:12"),
        user("Fine. Remember that the CI runs in UTC.", "09:13"),
        user("Do you remember what we chose? Remember what we chose for atlas?", "09:14"),
        user("请记住：发布用 make ship", "09:15"),
        user("remember this", "09:16"),
        assistant("please remember: assistants are not users", "09:17"),
    ]
    assert remember_requests(said) == [FACT, "the CI runs in UTC.", "发布用 make ship"]


def test_a_request_is_found_anywhere_in_a_message_and_ends_at_a_question() -> None:
    said = [
        user(
            "please remember: the staging DB is db-7.internal. And what port does it use?", "10:01"
        ),
        user("Which port? Ok, please remember that atlas uses port 5433. Thanks", "10:02"),
        user("我们用什么发布？请记住：发布前先跑 make check。你觉得呢？", "10:03"),
    ]
    assert remember_requests(said) == [  # was: [] (the message ended in a question)
        "the staging DB is db-7.internal.",
        "atlas uses port 5433. Thanks",
        "发布前先跑 make check。",
    ]


def test_remembering_together_is_not_a_request() -> None:
    said = [
        user("Do you remember when we picked Postgres? It was March.", "10:01"),
        user("do you remember when we picked Postgres.", "10:02"),
        user("Remember when we moved atlas to Frankfurt. Good times.", "10:03"),
        user("I remember that we picked Postgres. What was the reason?", "10:04"),
        user("Remembered that the build is green now.", "10:05"),
        user("If it fails, remember to run make clean first.", "10:06"),
        user("Can you remember that the DB is db-7?", "10:07"),
        user("你还记得我们选了什么吗？", "10:08"),
    ]
    assert remember_requests(said) == []


async def test_a_remember_request_is_kept_in_memory_md_even_when_the_model_stores_nothing(
    fake_llm, tmp_path, working_dir
) -> None:
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    conversation = [user(STAGING, "09:12"), assistant("Noted.", "09:12")]
    fake_llm.add_text("[nothing to store]")
    result = await summarizer.summarize(conversation, date=DAY, session_id="s1", lines=(1, 2))
    assert result.status == "written" and result.written == ["MEMORY.md"], result
    sent = fake_llm.chat_requests()[0].body["messages"][-1]["content"]
    assert "explicitly asked to remember" in str(sent) and FACT in str(sent)
    memory_md = working_dir.memory_md.read_text(encoding="utf-8")
    assert memory_md.startswith("# MEMORY") and memory_md.endswith(f"\n- {FACT}\n")

    fake_llm.add_text("[nothing to store]")  # saved again: no second bullet
    await summarizer.summarize(conversation, date=DAY, session_id="s1", lines=(1, 2))
    assert working_dir.memory_md.read_text(encoding="utf-8") == memory_md


async def test_the_entry_links_the_card_and_stays_above_the_digest_block(
    fake_llm, tmp_path, working_dir
) -> None:
    block = f"{BLOCK_START}\n## What the digest knows about you\n\n- [[x.md|x]]\n{BLOCK_END}\n"
    working_dir.memory_md.write_text(f"# MEMORY\n\n- likes tea\n\n{block}", encoding="utf-8")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text(ANSWERED)  # the small model's card, as its answer
    conversation = [user(STAGING, "09:12"), assistant("Noted.", "09:12")]
    result = await summarizer.summarize(conversation, date=DAY, session_id="s2", lines=(1, 2))
    card = "memory/2025-01-31/staging-database-deployment-schedule.md"
    assert result.written == [card, "memory/2025-01-31.md", "MEMORY.md"], result
    assert working_dir.memory_md.read_text(encoding="utf-8") == (
        f"# MEMORY\n\n- likes tea\n- {FACT} ([[{card}]])\n\n{block}"
    )


async def test_a_conversation_that_wrote_memory_md_itself_gets_no_second_entry(
    fake_llm, tmp_path, working_dir
) -> None:
    from agentscope.message import AssistantMsg, TextBlock, ToolCallBlock, ToolResultBlock

    edit = '{"path": "MEMORY.md", "old": "x", "new": "- staging: pg-stage-7"}'
    answer = AssistantMsg(
        name="ReMe",
        content=[
            TextBlock(text="Noted."),
            ToolCallBlock(id="c1", name="edit", input=edit),
            ToolResultBlock(id="c1", name="edit", output="edited MEMORY.md"),
        ],
        created_at=f"{DAY.isoformat()}T09:12:30",
    )
    before = working_dir.memory_md.read_text(encoding="utf-8")
    summarizer = Summarizer(make_settings(fake_llm, tmp_path), working_dir)
    fake_llm.add_text("[nothing to store]")
    conversation = [user(STAGING, "09:12"), answer]
    result = await summarizer.summarize(conversation, date=DAY, session_id="s3", lines=(1, 2))
    assert result.status == "nothing", result
    assert working_dir.memory_md.read_text(encoding="utf-8") == before
