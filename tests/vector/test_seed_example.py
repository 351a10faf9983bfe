"""The seed's example runs as written (in its own process, as a user would run it), with the
fake OpenAI server behind REME_LLM_* / REME_EMBEDDING_*."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from remecli.vector import ReMe
from tests.fakes import FakeOpenAIServer
from tests.vector.helpers import facts, user_prompt

EXAMPLE = Path(__file__).with_name("seed_example.py")


def test_the_seed_example_runs_as_written(tmp_path: Path) -> None:
    with FakeOpenAIServer() as fake:
        fake.add_text(
            facts("Alice asked for help writing a Python script", when="2026-02-28 10:00:00")
        )
        env = {
            **os.environ,
            "REME_LLM_API_KEY": "sk-test",
            "REME_LLM_BASE_URL": fake.base_url,
            "REME_EMBEDDING_API_KEY": "sk-test",
            "REME_EMBEDDING_BASE_URL": fake.base_url,
        }
        done = subprocess.run(
            [sys.executable, str(EXAMPLE)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        out = done.stdout
        for label in (
            "Summarize result:",
            "Retrieve result:",
            "Added memory:",
            "Fetched memory:",
            "Updated memory:",
            "User memory list:",
            "Deleted memory:",
        ):
            assert label in out
        assert "Alice asked for help writing a Python script" in out
        assert "User prefers concise, well-commented code style" in out
        [extraction] = fake.chat_requests()
        assert extraction.body["model"] == "qwen3.5-plus"
        assert "Help me write a Python script" in user_prompt(extraction.body)
        dims = {r.body.get("dimensions") for r in fake.requests if r.path == "/v1/embeddings"}
        assert dims == {1024}

        async def stored() -> list[str]:
            reme = ReMe(
                working_dir=tmp_path / ".reme",
                default_embedding_model_config={
                    "backend": "openai",
                    "base_url": fake.base_url,
                    "api_key": "sk-test",
                    "model_name": "text-embedding-v4",
                    "dimensions": 1024,
                },
            )
            async with reme:
                return [n.content for n in await reme.list_memory(user_name="alice")]

        # the extracted fact stays; the memory the example added and deleted is gone
        assert asyncio.run(stored()) == ["Alice asked for help writing a Python script"]
