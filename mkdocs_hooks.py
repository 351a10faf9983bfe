"""mkdocs hook: links from docs/ to files of the repository outside it.

mkdocs only knows the files under docs/, so a link such as `../integrations/README.md` would be
reported as not found (and fail `mkdocs build --strict`). This hook checks that the file exists
(a missing one is a warning, so the strict build fails) and points the link at the repository
(`repo_url` in mkdocs.yml) or, without one, keeps its text (which names the path).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")
log = logging.getLogger("mkdocs.hooks.repo_links")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs_dir = Path(config["docs_dir"]).resolve()
    root = docs_dir.parent
    page_dir = (docs_dir / page.file.src_uri).parent
    repo_url = (config.get("repo_url") or "").rstrip("/")

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return match.group(0)
        path, _, fragment = target.partition("#")
        resolved = (page_dir / path).resolve()
        if resolved.is_relative_to(docs_dir):
            return match.group(0)  # mkdocs checks these itself
        if not resolved.exists() or not resolved.is_relative_to(root):
            log.warning("%s links to %r, which is not in the repository", page.file.src_uri, target)
            return match.group(0)
        if not repo_url:
            return text
        rel = resolved.relative_to(root).as_posix()
        kind = "tree" if resolved.is_dir() else "blob"
        anchor = f"#{fragment}" if fragment else ""
        return f"[{text}]({repo_url}/{kind}/main/{rel}{anchor})"

    return LINK.sub(rewrite, markdown)
