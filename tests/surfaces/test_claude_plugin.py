"""The Claude Code plugin folder and the SKILL.md files: the layout Claude Code loads, the MCP
server it declares started and listed with the official MCP SDK client, its Stop hook run as
Claude Code runs it, and every `remecli` command the skills cite accepted by the real CLI."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from remecli.ops import JOBS
from tests.jobs.conftest import seed
from tests.surfaces.cli_parse import parse_command_line
from tests.surfaces.helpers import poll, surface_settings
from tests.surfaces.test_claude_hook import FIXTURE, HOOK

INTEGRATIONS = Path(__file__).resolve().parents[2] / "integrations"
PLUGIN = INTEGRATIONS / "claude-code-plugin"
SKILLS = [INTEGRATIONS / "SKILL.md", PLUGIN / "skills" / "remecli-memory" / "SKILL.md"]
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")  # Claude Code's plugin name rule
NO_LLM = "http://127.0.0.1:9/v1"


def frontmatter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), f"{path} has no frontmatter"
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_plugin_layout() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert NAME.match(manifest["name"]) and manifest["description"]
    market = json.loads((INTEGRATIONS / ".claude-plugin" / "marketplace.json").read_text())
    listed = {p["name"]: p for p in market["plugins"]}
    assert (INTEGRATIONS / listed[manifest["name"]]["source"]).resolve() == PLUGIN.resolve()
    servers = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert servers["remecli-memory"]["command"] == "remecli"
    assert parse_command_line(shlex.join(["remecli", *servers["remecli-memory"]["args"]]))
    for skill in SKILLS:
        meta = frontmatter(skill)
        assert NAME.match(meta["name"]) and len(meta["description"]) > 80


def stop_hook_command() -> str:
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    (entry,) = hooks["Stop"]
    (hook,) = entry["hooks"]
    assert hook["type"] == "command" and hook["timeout"] <= 30
    return hook["command"]


def test_plugin_stop_hook_is_the_hook() -> None:
    command = stop_hook_command().replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN))
    script = Path(shlex.split(command)[-1])
    assert script.resolve() == HOOK.resolve()


def test_plugin_stop_hook_records_the_session(tmp_path: Path, fake_llm) -> None:
    """Run hooks.json's command through a shell, as Claude Code does: no settings but the
    environment; without a server the hook's child records the session."""
    root = tmp_path / ".reme"
    seed(root)
    log = tmp_path / "hook.log"
    settings = " ".join(shlex.quote(s) for s in surface_settings(root, fake_llm.base_url))
    env = {
        **os.environ,
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
        "REMECLI_COMMAND": f"{shlex.quote(sys.executable)} -m remecli",
        "REMECLI_ARGS": settings,
        "REMECLI_HOOK_LOG": str(log),
    }
    event = {"session_id": "plugin-1", "transcript_path": str(FIXTURE), "cwd": str(tmp_path)}
    finished = subprocess.run(
        ["/bin/sh", "-c", stop_hook_command()],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert finished.returncode == 0 and finished.stderr == ""
    transcript = root / "sessions" / "claude-plugin-1.jsonl"
    poll(
        lambda: transcript.is_file() and transcript.read_text().count('"role"') == 5,
        "the record",
        120,
    )


async def test_plugin_mcp_server_lists_the_memory_tools(tmp_path: Path) -> None:
    """The server .mcp.json declares, started the way Claude Code starts it (the command from
    this checkout instead of the installed `remecli`), answers the official SDK client."""
    root = tmp_path / ".reme"
    seed(root)
    declared = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["remecli-memory"]
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remecli", *declared["args"], *surface_settings(root, NO_LLM)],
        env={**os.environ},
        cwd=str(tmp_path),
    )
    async with Client(server) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        hits = await client.call_tool("memory_search", {"query": "stg-7"})
    assert {"memory_search", "memory_read", "memory_write_card"} <= tools
    assert "stg-7" in json.dumps(hits.structured_content)


def cited_commands(skill: Path) -> list[str]:
    """Every `remecli …` command line of a skill: lines of its bash blocks, inline code spans."""
    text = skill.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line.startswith("remecli"):
                lines.append(line)
    lines += [span for span in re.findall(r"`([^`\n]+)`", text) if span.startswith("remecli ")]
    return lines


def test_every_command_the_skills_cite_parses() -> None:
    for skill in SKILLS:
        commands = cited_commands(skill)
        assert commands, f"{skill} cites no remecli command"
        for line in commands:
            parse_command_line(line)  # raises on an unknown command or option


def test_every_tool_the_plugin_skill_names_exists() -> None:
    text = SKILLS[1].read_text(encoding="utf-8")
    named = set(re.findall(r"`(memory_[a-z_]+)`", text))
    assert {"memory_search", "memory_read", "memory_write_card"} <= named
    assert named <= {job.name for job in JOBS}
