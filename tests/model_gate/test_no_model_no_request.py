"""No background model job starts without a configured model: a start with a due Auto Dream and
a pending summary, but OpenAI's URL and no key, sends nothing anywhere (a recording proxy
stands in for every host the user did not configure) and says once what is missing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from remecli.notes.layout import WorkingDir
from tests.cli_process import run_remecli
from tests.dream.conftest import add_card
from tests.fakes.pending_record import write_pending_record
from tests.fakes.recording_proxy import RecordingProxy


def test_a_start_without_a_model_sends_no_memory_anywhere(tmp_path: Path) -> None:
    wd = WorkingDir(tmp_path / ".reme").ensure()
    add_card(wd, dt.date.today(), "deploy", "Deploy atlas", "ship atlas with make ship")
    record = write_pending_record(wd.root, "the staging DB is db-7")
    with RecordingProxy() as proxy:
        proc = run_remecli(
            "ui=plain",
            f"working_dir={wd.root}",
            "search.embedding.backend=none",
            cwd=tmp_path,
            input="hi\n/exit\n",
            env=proxy.proxy_env(),
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr
    assert proxy.requests == []  # was: 8 × CONNECT api.openai.com:443 (dream and summary)
    shown = proc.stdout + proc.stderr
    assert shown.count("No model is configured") == 1
    assert "REME_LLM_API_KEY" in shown
    assert record.exists()  # the pending messages wait for a start with a model


async def test_no_request_leaves_a_model_without_a_configured_endpoint() -> None:
    import pytest

    from remecli.config.settings import LLMSettings
    from remecli.llm.chat_model import user
    from remecli.llm.errors import ModelNotConfigured
    from remecli.llm.model import build_chat_model

    model = build_chat_model(LLMSettings(), stream=False)  # OpenAI's URL, no key: built...
    with pytest.raises(ModelNotConfigured, match="No API key configured"):  # ...never sent
        await model.complete_json([user("hi")], {"type": "object"})
