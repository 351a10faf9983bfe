"""Surfaces are adapters (issue 40, item 2): `remecli/surfaces` imports only the operations
layer (`remecli.ops`: jobs called with `JobRunner.call(TypedParams(...))`), `remecli.config`
and itself. What still reaches further is listed in `EXCEPTIONS`, each with its reason: a
ratchet that only shrinks (a new import fails, and so does an exception no longer needed).
"""

from __future__ import annotations

import ast

from tests.test_import_boundaries import PACKAGE, _unit, imported_modules, module_name

ALLOWED = {"ops", "config", "surfaces"}
SURFACES = PACKAGE / "surfaces"

# file (relative to remecli/surfaces) -> {package it still imports: why}
EXCEPTIONS: dict[str, dict[str, str]] = {
    "job_policy.py": {
        "notes": "the path glob of a confined token (glob_regex), shared with the note lister",
    },
    "tokens.py": {"notes": "the token file's lock and atomic write (notes owns both)"},
    "daemon.py": {"notes": "writes .serve.json atomically (notes.atomic_write is the one way)"},
    "import_route.py": {"knowledge": "parses an uploaded conversation before memory_record"},
    "commands.py": {"llm": "routes agentscope's logs before a server starts"},
    "notes_resources.py": {"notes": "which files MCP lists as note resources (is_note_path)"},
    "note_changes.py": {"search": "the watcher that tells MCP subscribers a note changed"},
    "cli/sync.py": {
        "notes": "sync runs without a runtime: its own memory writer for the stand-in host",
        "sync": "`remecli sync init` sets the repo up (no job does that yet)",
    },
    "cli/read_only.py": {
        "conversation": "search of an unwritable working dir assembles its own runtime",
        "notes": "… with a link graph kept in memory",
        "search": "… and a temporary copy of the index (the search request is typed elsewhere)",
    },
    "cli/search.py": {"search": "embedding errors, hit and index types of the search command"},
    "cli/vector.py": {"vector": "MemoryNode: how a memory is shown in a line"},
    "cli/importing.py": {"knowledge": "parses conversation files before memory_record"},
    "cli/job.py": {
        "runtime": "one_shot builds the commands' runtime (the composition root)",
        "llm": "routes agentscope's logs",
    },
    "studio/render.py": {
        "notes": "renders Markdown: the frontmatter and wikilinks it shows as fields and links",
    },
    "studio/launch.py": {"llm": "routes agentscope's logs before Studio starts"},
}


# file -> why it calls a job by name with a dict (`JobRunner.run(name, arguments)`); every other
# call is typed (`runner.call(ThingParams(...))`, or `runner.answer(...)` for the JSON answer)
BY_NAME: dict[str, str] = {
    "access.py": "the gate: an MCP or HTTP client names the job and sends JSON arguments",
    "cli/job.py": "`remecli job NAME --json ARGS`: the user names the job",
    "cli/importing.py": "memory_record through a `run` it shares with the import route (a gate)",
}


def _is_package(unit: str) -> bool:
    """True for a package of remecli (not a name of its root, such as `__version__`)."""
    return (PACKAGE / unit).is_dir()


def _reached() -> dict[str, set[str]]:
    """Per surfaces file, the remecli packages outside ALLOWED it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted(SURFACES.rglob("*.py")):
        units = {
            unit
            for _, names in imported_modules(path, module_name(path, PACKAGE.parent))
            for name in names
            if (unit := _unit(name)) is not None and unit not in ALLOWED and _is_package(unit)
        }
        if units:
            found[path.relative_to(SURFACES).as_posix()] = units
    return found


def test_surfaces_import_only_ops_config_and_themselves() -> None:
    reached = _reached()
    new = {
        f"{file} imports remecli.{unit}"
        for file, units in reached.items()
        for unit in units
        if unit not in EXCEPTIONS.get(file, {})
    }
    assert not new, "go through a job (JobRunner.call) instead: " + "; ".join(sorted(new))


def test_the_exceptions_only_shrink() -> None:
    reached = _reached()
    stale = {
        f"{file}: remecli.{unit}"
        for file, units in EXCEPTIONS.items()
        for unit in units
        if unit not in reached.get(file, set())
    }
    assert not stale, "no longer imported; remove from EXCEPTIONS: " + "; ".join(sorted(stale))


def test_surfaces_call_jobs_by_name_only_where_the_caller_names_the_job() -> None:
    by_name = {
        path.relative_to(SURFACES).as_posix()
        for path in SURFACES.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)  # called, or handed on as a callback
        and node.attr == "run"
        and ast.unparse(node.value).endswith("runner")
    }
    assert by_name == set(BY_NAME), "call the job with its typed params (JobRunner.call)"
