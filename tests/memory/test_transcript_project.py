"""A conversation's transcript records name the project it was held in (issue 22.1) also when
they are written through the full-disk queue the conversation always appends through."""

from __future__ import annotations

import json

from tests.memory.conftest import Script


async def test_the_apps_transcript_records_name_the_current_project(rig_factory, fake_llm) -> None:
    Script(fake_llm, steps=["noted"])
    rig = rig_factory(project="atlas-repo")
    await rig.ask("we deploy on Fridays")
    path = rig.mw.working_dir.transcript_file(rig.agent.state.session_id)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    said = [r for r in records if r["t"] in ("msg", "blocks")]
    assert said and all(r.get("project") == "atlas-repo" for r in said), said
