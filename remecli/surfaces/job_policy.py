"""What a surface needs to know about each job beyond the registry: the scope it needs, the paths
a call touches (for `--paths` tokens and the access log), and the MCP destructive hint.

A token confined to a path glob runs only the jobs listed here as path-aware, with the path
checked before (or, for read-only jobs that resolve names, after) the job runs and the hits,
entries and links it returns filtered to the glob. Any other job is refused for such a token
(fail closed: a new job is not open to confined tokens until it is listed here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from remecli.notes.files import glob_regex
from remecli.ops import Job
from remecli.ops.context import JobContext
from remecli.ops.errors import Forbidden, JobError
from remecli.ops.knowledge_jobs import card_files
from remecli.ops.paths import confine
from remecli.surfaces.tokens import Principal, Scope

if TYPE_CHECKING:
    from pydantic import JsonValue
    from pydantic.config import JsonDict

# checked before the job runs: the job's parameter naming the file it touches
PATH_PARAM = {
    "memory_read": "path",
    "memory_edit": "path",
    "memory_write": "path",
    "memory_history": "path",
    "memory_restore": "path",
}
# read-only jobs a confined token may run: their answers are filtered to the glob
FILTERED = frozenset({"memory_search", "memory_list", "memory_links", "memory_status"})
# writing jobs whose notes the link graph tells (`note_jobs.touched_notes`): the note a name
# resolves to; a rename also writes its new path and every note linking to it
LINKED = frozenset({"memory_rename", "memory_delete"})
PATH_AWARE = frozenset({*PATH_PARAM, *FILTERED, *LINKED, "memory_write_card"})
# writing jobs that only add (a card, a transcript, ingested resources, index rows, vector
# memories); every other writing job may change or drop what is there (the MCP destructiveHint:
# a new writing job counts as destructive until it is listed here)
ADDITIVE = frozenset(
    {
        "memory_record",
        "memory_write_card",
        "memory_ingest",
        "memory_reindex",
        "memory_vector_summarize",
        "memory_vector_add",
        "memory_vector_import",
    }
)


# the fields of an answer that name files the job read or wrote (the access log lists them all)
WRITTEN_KEYS = ("path", "new_path", "transcript", "day_page")
WRITTEN_LISTS = ("rewritten",)


def is_destructive(job: Job) -> bool:
    """True for a writing job that may change or drop what is there (not only add)."""
    return not job.read_only and job.name not in ADDITIVE


def reports_failure(data: JsonDict) -> bool:
    """True when a job's answer says it failed (`ok: false`, e.g. a dream or an ingest that
    did not complete): the call is an error to MCP and "failed" in the access log."""
    return data.get("ok") is False


def required_scope(job: Job) -> Scope:
    """`read` for a read-only job, `write` for one that changes memory."""
    return "read" if job.read_only else "write"


def may_call(principal: Principal, job: Job) -> bool:
    """True when the token's scope allows `job` and, for a confined token, the job is path-aware."""
    if not principal.allows(required_scope(job)):
        return False
    return principal.paths is None or job.name in PATH_AWARE


def glob_matches(glob: str, path: str) -> bool:
    """True when the relative POSIX `path` matches `glob` (`*` within a folder, `**` across)."""
    return glob_regex(glob.strip().strip("/")).fullmatch(path.strip("/")) is not None


def folder_may_hold(glob: str, folder: str) -> bool:
    """True when something under `folder` can match `glob`, or `folder` leads to it."""
    folder = folder.strip("/")
    if not folder:
        return True
    literal = re.split(r"[*?\[]", glob.strip().strip("/"), maxsplit=1)[0]
    return literal.startswith(folder + "/") or (folder + "/").startswith(literal)


def paths_of_call(
    job: Job, context: JobContext, arguments: Mapping[str, object] | None, *, links: bool = True
) -> list[str]:
    """The working-dir-relative paths a call names or would write (before it runs); [] when it
    names none. A card's call names the card and its day page, which the job rewrites too; a
    rename or delete the notes it writes (blocking: reads the link graph; `links` False: [])."""
    arguments = arguments if isinstance(arguments, Mapping) else {}
    root = context.root
    if job.name == "memory_write_card":
        return card_files(context, arguments)
    if job.name in LINKED:
        from remecli.ops.note_jobs import touched_notes

        return touched_notes(context, job.name, arguments) if links else []
    key = PATH_PARAM.get(job.name) or ("folder" if job.name == "memory_list" else None)
    raw = arguments.get(key) if key else None
    if not isinstance(raw, str):
        return []
    try:
        return [confine(root, raw, allow_root=job.name == "memory_list").relative]
    except JobError:
        return []  # the job itself refuses it, with its own message


def check_paths(principal: Principal, job: Job, paths: list[str]) -> None:
    """Refuse (403) a confined token's call outside its glob, or a job it cannot be checked for."""
    glob = principal.paths
    if glob is None:
        return
    if job.name not in PATH_AWARE:
        raise Forbidden(
            f"{job.name} is not open to token {principal.name!r}, which is confined to "
            f"{glob!r}; use a token without --paths"
        )
    for path in paths:
        allowed = (
            folder_may_hold(glob, path) if job.name == "memory_list" else glob_matches(glob, path)
        )
        if not allowed:
            also = f"{path!r} is "
            if job.name == "memory_write_card" and path != paths[0]:
                also = f"{job.name} also rewrites the day page {path!r} (its index of cards), "
                also += "which is "
            elif job.name == "memory_rename" and path not in paths[:2]:
                also = f"{job.name} also rewrites the links in {path!r} (it links to the note), "
                also += "which is "
            raise Forbidden(
                f"{also}outside {glob!r}, the paths token {principal.name!r} may use; use a "
                "token whose --paths cover it"
            )


def _objects(value: JsonValue) -> list[JsonDict]:
    """The JSON objects a JSON list holds (none when `value` is not a list)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _within(glob: str, notes: JsonValue) -> list[JsonValue]:
    """The notes (`{"path", …}`) of a JSON list inside `glob`."""
    return [n for n in _objects(notes) if glob_matches(glob, str(n.get("path")))]


def _strings(value: JsonValue) -> list[str]:
    """The strings a JSON list holds (none when `value` is not a list)."""
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def filter_result(principal: Principal, job: Job, data: JsonDict) -> JsonDict:
    """A read-only job's answer narrowed to a confined token's glob."""
    glob = principal.paths
    if glob is None:
        return data
    if job.name == "memory_search":
        data["results"] = [
            _links_within(glob, h)
            for h in _objects(data["results"])
            if glob_matches(glob, str(h.get("path")))
        ]
    elif job.name == "memory_list":
        data["entries"] = [
            e
            for e in _objects(data["entries"])
            if (
                folder_may_hold(glob, str(e["path"]))
                if e["type"] == "folder"
                else glob_matches(glob, str(e["path"]))
            )
        ]
    elif job.name == "memory_links":
        if not glob_matches(glob, str(data.get("path"))):
            raise Forbidden(
                f"{data.get('path')!r} is outside {glob!r}, the paths token {principal.name!r} "
                "may use"
            )
        for side in ("out", "in"):
            data[side] = _within(glob, data.get(side, []))
    return data


def _links_within(glob: str, hit: JsonDict) -> JsonValue:
    """A search hit whose `links` (out/in) name only notes inside `glob`."""
    links = hit.get("links")
    if isinstance(links, dict):
        hit["links"] = {side: _within(glob, notes) for side, notes in links.items()}
    return hit


def named_paths(arguments: object) -> list[str]:
    """The paths a call's arguments name, as given (for the access log, also when refused)."""
    if not isinstance(arguments, dict):
        return []
    return [v[:200] for k in ("path", "folder") if isinstance(v := arguments.get(k), str)]


def paths_of_result(job: Job, data: JsonDict) -> list[str]:
    """The paths an answer names (for the access log: which files were touched or returned):
    a search's hits, else every file a job says it read or wrote."""
    if job.name == "memory_search":
        return [str(hit.get("path")) for hit in _objects(data.get("results", []))]
    named = [value for key in WRITTEN_KEYS if isinstance(value := data.get(key), str) and value]
    listed = [p for key in WRITTEN_LISTS for p in _strings(data.get(key))]
    return [*named, *listed]
