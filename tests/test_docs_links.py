"""The README's and the documentation's relative links lead to files of the repository.

`mkdocs build --strict` (in .ci/run) checks the links between pages of docs/, but not the README,
which GitHub and PyPI show on their own, and it needs the docs extra; this runs with the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# [text](target) and ![alt](target), and <img src="target">; a title after the target is allowed.
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|<img[^>]*\bsrc=\"([^\"]+)\"")
FENCE = re.compile(r"^(```|~~~).*?^\1", flags=re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def relative_links(text: str) -> list[str]:
    """The link targets of a Markdown text that name a file (no scheme, no bare anchor)."""
    prose = INLINE_CODE.sub("", FENCE.sub("", text))
    targets = [a or b for a, b in LINK.findall(prose)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:|^#", t)]


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The targets in `page` whose file (or folder) does not exist inside `root`."""
    broken = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() or not path.is_relative_to(root):
            broken.append(target)
    return broken


def github_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file (lowercase, punctuation dropped)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def broken_anchors(page: Path) -> list[str]:
    """The `file.md#anchor` targets in `page` whose file has no heading with that anchor."""
    broken = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve()
        if (
            anchor
            and path.endswith(".md")
            and file.is_file()
            and anchor not in github_anchors(file)
        ):
            broken.append(target)
    return broken


def test_readme_anchors_exist_on_github() -> None:
    """The README is read on GitHub, whose heading anchors are the ones to match."""
    assert broken_anchors(ROOT / "README.md") == []


def test_a_missing_anchor_is_found(tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(
        "# Page\n\n## MEMORY.md\n\n## Two commands\n```\n# not a heading\n```\n"
    )
    readme = tmp_path / "README.md"
    readme.write_text(
        "[a](page.md#memorymd) [b](page.md#two-commands) [c](page.md#not-a-heading) [d](page.md#gone)\n"
    )
    assert broken_anchors(readme) == ["page.md#not-a-heading", "page.md#gone"]


def test_readme_and_docs_links_resolve() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = {str(p.relative_to(ROOT)): b for p in pages if (b := broken_links(p))}
    assert broken == {}


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# there\n")
    page.write_text(
        "[ok](docs/there.md#a) [gone](docs/missing.md) ![pic](docs/x.png) "
        '<img src="docs/y.svg"> [web](https://example.org) [anchor](#top)\n'
        "`[code](not/a/link.md)`\n```\n[fenced](no.md)\n```\n"
    )
    assert relative_links(page.read_text()) == [
        "docs/there.md#a",
        "docs/missing.md",
        "docs/x.png",
        "docs/y.svg",
    ]
    assert broken_links(page, root=tmp_path) == ["docs/missing.md", "docs/x.png", "docs/y.svg"]
