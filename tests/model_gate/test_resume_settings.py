"""The printed resume command works as printed: a conversation started with `llm.base_url=…
llm.model_name=… llm.api_key=…` records its endpoint and model (never the key) in its state file,
and `remecli resume=<id>` answers with them; nothing goes to a host the user did not configure
(a recording proxy stands in for the default one). A command-line setting still wins."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from remecli.knowledge.summary.summarizer import NOTHING_MARKER
from tests.cli_process import run_remecli
from tests.fakes.recording_proxy import RecordingProxy


def _hint(output: str) -> list[str]:
    """The printed resume command, as words (`remecli` dropped), without the key note."""
    [line] = re.findall(r"To continue this conversation: (remecli [^\n(]*)", output)
    words = shlex.split(line)
    assert words[0] == "remecli"
    return words[1:]


def _said_to(fake_llm, text: str) -> list[str]:
    """The models of the chat's requests (streamed; summaries are not) whose last user
    message is `text`."""
    models = []
    for request in fake_llm.chat_requests():
        if not request.body.get("stream"):
            continue
        users = [m for m in request.body["messages"] if m["role"] == "user"]
        if users and text in json.dumps(users[-1]["content"]):
            models.append(request.body["model"])
    return models


def test_the_printed_resume_command_answers_with_the_recorded_model(
    fake_llm, tmp_path: Path
) -> None:
    fake_llm.set_fallback(NOTHING_MARKER)
    fake_llm.add_text("Hello.")
    memory = tmp_path / "memory-dir"
    first = run_remecli(
        "ui=plain",
        f"llm.base_url={fake_llm.base_url}",
        "llm.model_name=m-first",
        "llm.api_key=x-secret-key",
        f"working_dir={memory}",
        "search.embedding.backend=none",
        cwd=tmp_path,
        input="hi\n/exit\n",
        timeout=120,
    )
    assert first.returncode == 0, first.stderr
    output = first.stdout + first.stderr
    assert "keys are never recorded" in output
    [state] = (memory / "sessions").glob("*.state.json")
    assert "x-secret-key" not in state.read_text(encoding="utf-8")

    fake_llm.add_text("Welcome back.")
    with RecordingProxy() as proxy:
        again = run_remecli(
            *_hint(output),
            "ui=plain",
            cwd=tmp_path,
            input="again\n/exit\n",
            env=proxy.proxy_env(),
            timeout=120,
        )
    assert again.returncode == 0, again.stderr
    shown = again.stdout + again.stderr
    assert f"answers with m-first at {fake_llm.base_url}" in shown
    assert "No API key" not in shown and "Welcome back." in shown
    assert _said_to(fake_llm, "again") == ["m-first"]
    assert proxy.requests == []  # was: the default host (Auto Dream, summaries)

    fake_llm.add_text("Switched.")
    third = run_remecli(
        *_hint(again.stdout + again.stderr),
        "llm.model_name=m-other",
        "ui=plain",
        cwd=tmp_path,
        input="third\n/exit\n",
        timeout=120,
    )
    assert third.returncode == 0, third.stderr
    assert _said_to(fake_llm, "third") == ["m-other"]  # the command line wins
