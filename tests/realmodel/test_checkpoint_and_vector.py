"""Compaction and vector memory's summarize on a real model: every section, faithful memories."""

from __future__ import annotations

import time
from pathlib import Path

from remecli.conversation import prompts
from remecli.conversation.compactor import Compactor
from remecli.conversation.prompts.examples import checkpoint_examples
from remecli.llm.model import build_chat_model
from remecli.llm.tokens import get_token_counter
from remecli.vector import ReMe, remember_conversation
from tests.realmodel.conversations import BILLING, FLAKY_TEST
from tests.realmodel.real import REAL_MODEL, WINDOW, real_settings

pytestmark = REAL_MODEL


async def test_a_checkpoint_carries_every_section(tmp_path: Path) -> None:
    settings = real_settings(tmp_path)
    model = build_chat_model(settings.llm, context_size=WINDOW, stream=True)
    compactor = Compactor(
        model, get_token_counter("o200k_base"), max_input_length=WINDOW, max_retries=1
    )
    started = time.monotonic()
    result = await compactor.compact(FLAKY_TEST.messages())
    await model.aclose()
    seconds = time.monotonic() - started
    print(
        f"compaction: ok={result.ok} retries={result.retries} filled={result.filled_sections} "
        f"in {seconds:.0f} s\n{result.summary}"
    )
    assert result.ok, result.error
    assert prompts.missing_sections(result.summary) == [], result.summary
    assert not result.filled_sections, f"the model left out {result.filled_sections}"
    examples = checkpoint_examples()
    copied = [line for line in result.summary.splitlines() if line.lower().strip() in examples]
    assert not copied, f"the prompt's example lines were kept: {copied}"
    lowered = result.summary.lower()
    assert any(word.lower() in lowered for word in FLAKY_TEST.must_keep), result.summary


async def test_vector_memory_keeps_the_users_facts(tmp_path: Path) -> None:
    settings = real_settings(tmp_path)
    llm = settings.llm
    reme = ReMe(
        working_dir=tmp_path / "vector",
        default_llm_config={
            "base_url": llm.base_url,
            "api_key": llm.api_key,
            "model_name": llm.model_name,
            "temperature": 0.0,
            "timeout": llm.timeout,
        },
        default_embedding_model_config={"backend": "local"},
        default_vector_store_config={"backend": "local"},
    )
    async with reme:
        started = time.monotonic()
        changed = await remember_conversation(reme, BILLING.messages(), user_name="dana")
        seconds = time.monotonic() - started
        print(f"vector summarize: {len(changed)} change(s) in {seconds:.0f} s")
        for node in changed:
            print(f"  {node.action} {node.memory_type}/{node.memory_target}: {node.content}")
        # the conversation itself is always kept (a `history` node); the facts are `personal`
        added = [n for n in changed if n.action == "add" and n.memory_type != "history"]
        assert added, "nothing was remembered from a conversation with a decision and a fact"
        assert all(n.memory_type == "personal" and n.memory_target == "dana" for n in added)
        assert all(n.content.strip() for n in added)
        text = " ".join(n.content for n in added).lower()
        assert "miso" in text or "postgresql" in text, text
        found = await reme.retrieve("what is the user's cat called?", user_name="dana")
        assert any("miso" in n.content.lower() for n in found), [n.content for n in found]
