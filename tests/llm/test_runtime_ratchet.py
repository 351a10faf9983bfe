"""A ratchet on the provider seam (issue 40): no file outside `remecli/llm/` imports agentscope
(or `remecli.llm.runtime`, the re-export package that carried its types until every caller moved
onto remecli's own), and none builds an agentscope `Agent` (every agent loop comes from
`remecli.llm.agent_loop`'s factory). `CEILING` went 33 → 0 over issue 40; it stays 0."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "remecli"
RUNTIME = ("agentscope", "remecli.llm.runtime")
CEILING = 0  # 33 before remecli's own message/tool/loop types (issue 40, item 1); 27 before
# the surfaces' log routing, the conversation state (remecli.llm.conversation_state), the
# tools' own results (ToolOutput) and remecli's own middleware interface


def runtime_imports(source: str) -> list[str]:
    """The modules `source` imports from agentscope or `remecli.llm.runtime`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        found += [name for name in names if name.startswith(RUNTIME)]
    return found


def builds_an_agent(source: str) -> bool:
    """True when `source` calls an `Agent` it imported from agentscope or the runtime."""
    tree = ast.parse(source)
    local = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(RUNTIME)
        for alias in node.names
        if alias.name == "Agent"
    }
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in local
        for node in ast.walk(tree)
    )


def outside_llm() -> dict[str, str]:
    return {
        path.relative_to(PACKAGE.parent).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "llm"
    }


def test_files_importing_the_runtime_outside_llm_do_not_grow() -> None:
    importers = sorted(name for name, text in outside_llm().items() if runtime_imports(text))
    assert len(importers) <= CEILING, (
        f"{len(importers)} files outside remecli/llm/ import agentscope or remecli.llm.runtime "
        f"(at most {CEILING}); use remecli's own types instead: {importers}"
    )


def test_the_conversation_and_the_operations_see_no_runtime() -> None:
    """The conversation's state and messages go through `remecli.llm.conversation_state`; the
    conversation package, the jobs and the surfaces never name the runtime again."""
    reached = sorted(
        name
        for name, text in outside_llm().items()
        if name.startswith(("remecli/conversation/", "remecli/ops/", "remecli/surfaces/"))
        and runtime_imports(text)
    )
    assert reached == [], f"use remecli.llm.conversation_state instead: {reached}"


def test_only_the_factory_builds_an_agent() -> None:
    builders = [name for name, text in outside_llm().items() if builds_an_agent(text)]
    assert builders == [], f"build the agent loop with remecli.llm.agent_loop: {builders}"


def test_the_scans_catch_injected_imports_and_agents() -> None:
    source = (
        "import agentscope.message\n"
        "def f():\n"
        "    from remecli.llm.runtime.agents import Agent as A\n"
        "    return A(name='x')\n"
    )
    assert runtime_imports(source) == ["agentscope.message", "remecli.llm.runtime.agents"]
    assert builds_an_agent(source)
    plain = "from remecli.llm.agent_loop import build_agent_loop\n'''agentscope.Agent('''\n"
    assert runtime_imports(plain) == [] and not builds_an_agent(plain)
