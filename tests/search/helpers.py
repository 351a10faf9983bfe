"""Shared data and helpers of the search tests."""

from __future__ import annotations

from remecli.config.search import SearchSettings

MEMORY_MD = """# Preferences
- The user prefers Python 3.12 and uses uv for packaging.
- Deploys follow deploy-notes.md; the outage is tracked in issue #184.

# 项目
用户喜欢用 Rust 编写命令行工具。部署脚本每天晚上在服务器上运行。
"""

DAY_NOTE = """# 2025-01-02

## Infrastructure
We discussed the Kubernetes migration plan and the nightly database backup schedule.

## Cooking
Tried a new sourdough recipe; the crumb was too dense.
"""


def settings(**changes) -> SearchSettings:
    """Search settings with keyword-only embedding unless changed."""
    data = {"embedding": {"backend": "none"}, **changes}
    return SearchSettings.model_validate(data)
