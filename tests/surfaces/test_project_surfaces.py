"""The current project (issue 22.1), as real processes see it: `remecli where` names it, a card
written from a project records it (`project:`), and `--project` / the `project` parameter of
memory_search filter by it — from the shell and through the official MCP SDK client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from remecli.notes.frontmatter import read_frontmatter
from tests.config.test_memory_home import remecli, where

KEYWORD_ONLY = "search.embedding.backend=none"


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    """A HOME (its memory home unused so far), two git work trees and a folder outside git."""
    found = {name: tmp_path / name for name in ("home", "shop", "blog", "elsewhere")}
    for folder in found.values():
        folder.mkdir()
    for repo in ("shop", "blog"):
        subprocess.run(["git", "init", "-q"], cwd=found[repo], check=True)
    (found["shop"] / "src" / "pkg").mkdir(parents=True)
    return found


def env_of(places: dict[str, Path]) -> dict[str, str]:
    return {"HOME": str(places["home"])}


def write_card(cwd: Path, env: dict[str, str], name: str, body: str, *extra: str) -> Path:
    done = remecli(
        "job", "memory_write_card", "--name", name, "--description", f"How {name} works, in short",
        "--content", body, *extra, KEYWORD_ONLY, cwd=cwd, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return Path(json.loads(done.stdout)["path"])


def search(cwd: Path, env: dict[str, str], query: str, *options: str) -> list[dict]:
    done = remecli("search", query, "--json", *options, KEYWORD_ONLY, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_where_names_the_current_project(places: dict[str, Path]) -> None:
    env = env_of(places)
    deep = where(places["shop"] / "src" / "pkg", env)
    assert deep["kind"] == "home" and deep["project"] == "shop"
    assert "git work tree" in str(deep["project_why"])
    assert where(places["elsewhere"], env)["project"] is None
    assert where(places["elsewhere"], env, "project=atlas")["project"] == "atlas"
    assert where(places["shop"], {**env, "REME_PROJECT": "atlas"})["project"] == "atlas"
    assert where(places["shop"], env, "project=")["project"] is None
    text = remecli("where", cwd=places["shop"], env=env).stdout
    assert "project shop" in text
    (places["elsewhere"] / "notes" / ".reme").mkdir(parents=True)  # a project memory
    assert where(places["elsewhere"] / "notes", env)["project"] == "notes"


@pytest.mark.timeout(300)
def test_cards_record_the_project_and_search_filters_by_it(places: dict[str, Path]) -> None:
    env = env_of(places)
    home = places["home"] / ".local" / "share" / "remecli"
    shop_card = write_card(
        places["shop"] / "src", env, "Shop deploy", "Deploy the canary build with make release."
    )
    blog_card = write_card(
        places["blog"], env, "Blog deploy", "Deploy the canary build of the static site."
    )
    loose = write_card(places["elsewhere"], env, "Loose deploy", "Deploy the canary by hand.")
    meta = {p: read_frontmatter((home / p).read_text(encoding="utf-8")).meta for p in (shop_card, blog_card, loose)}  # fmt: skip
    assert meta[shop_card]["project"] == "shop" and meta[blog_card]["project"] == "blog"
    assert "project" not in meta[loose]
    named = write_card(places["elsewhere"], env, "Named", "Deploy notes.", "--project", "atlas")
    assert read_frontmatter((home / named).read_text()).meta["project"] == "atlas"

    only_shop = search(places["elsewhere"], env, "deploy canary build", "--project", "shop")
    assert [hit["path"] for hit in only_shop] == [str(shop_card)]
    assert only_shop[0]["project"] == "shop"
    assert search(places["elsewhere"], env, "deploy canary", "--project", "nowhere") == []
    plain = remecli("search", "deploy canary", "--project", "blog", KEYWORD_ONLY, cwd=places["shop"], env=env)  # fmt: skip
    assert plain.returncode == 0 and "[project blog]" in plain.stdout and "shop" not in plain.stdout
    # no filter: every project's hits, the current project's a little higher
    from_blog = search(places["blog"], env, "deploy canary build")
    assert {hit["path"] for hit in from_blog} >= {str(shop_card), str(blog_card)}
    assert from_blog[0]["path"] == str(blog_card)
    assert search(places["shop"], env, "deploy canary build")[0]["path"] == str(shop_card)


@pytest.mark.timeout(300)
async def test_mcp_client_writes_in_its_project_and_filters_by_project(
    places: dict[str, Path],
) -> None:
    env = {**os.environ, **env_of(places)}
    env.pop("XDG_DATA_HOME", None)  # the memory home under this test's HOME
    home = places["home"] / ".local" / "share" / "remecli"
    body = "tag, build the wheel, upload the release."
    blog_card = write_card(places["blog"], env, "Blog release", f"Blog release: {body}")
    write_card(places["elsewhere"], env, "Loose release", f"Loose release: {body}")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remecli", "mcp", KEYWORD_ONLY],
        env=env,
        cwd=places["shop"],
    )
    async with Client(params, read_timeout_seconds=120) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert "project" in tools["memory_search"].input_schema["properties"]
        assert "project" not in tools["memory_search"].input_schema.get("required", [])
        assert "project" in tools["memory_write_card"].input_schema["properties"]
        arguments = {
            "name": "Shop release",
            "description": "How the shop release goes out",
            "content": f"Shop release: {body}",
        }
        written = await client.call_tool("memory_write_card", arguments)
        assert not written.is_error, written.content
        path = json.loads(written.content[0].text)["path"]
        meta = read_frontmatter((home / path).read_text(encoding="utf-8")).meta
        assert meta["project"] == "shop"  # the server runs in the shop work tree

        found = await client.call_tool(
            "memory_search", {"query": "release wheel upload", "project": "blog"}
        )
        hits = json.loads(found.content[0].text)["results"]
        assert [(hit["path"], hit["project"]) for hit in hits] == [(str(blog_card), "blog")]
        every = await client.call_tool("memory_search", {"query": "release wheel upload"})
        assert len(json.loads(every.content[0].text)["results"]) >= 2
