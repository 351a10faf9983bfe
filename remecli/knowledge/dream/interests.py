"""Interests (Proactive): `memory/YYYY-MM-DD/interests.yaml`, at most 3 topics a day.

A dream suggests topics the user may want to follow (title, reason, evidence paths, keywords);
a title already suggested in the last 7 days is not repeated. remecli only shows them
(`render_interests`, for `/interests`); it never acts on them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TypedDict, cast

import yaml

from remecli.knowledge.cards.card import day_folder
from remecli.knowledge.dream import prompts
from remecli.knowledge.dream.extract import Interest
from remecli.knowledge.write import write_memory_file
from remecli.notes.layout import WorkingDir
from remecli.notes.writer import MemoryWriter

FILE_NAME = "interests.yaml"
MAX_TOPICS = 3
REPEAT_DAYS = 7
LOOKBACK_DAYS = 30  # how far back `render_interests` looks for the latest file


class Topic(TypedDict, total=False):
    """One suggested topic as `interests.yaml` holds it (`title` always: others are skipped)."""

    title: str
    reason: str
    evidence: list[str]
    keywords: list[str]


def interests_file(working_dir: WorkingDir, day: dt.date) -> Path:
    """`memory/YYYY-MM-DD/interests.yaml`."""
    return day_folder(working_dir, day) / FILE_NAME


def read_topics(path: Path) -> list[Topic]:
    """The topics of one interests file ([] when absent or unreadable)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, yaml.YAMLError):
        return []
    topics = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(topics, list):
        return []
    # Kept as written (a hand-added key survives the next write); readers str() each value.
    return [cast(Topic, t) for t in topics if isinstance(t, dict) and t.get("title")]


def _key(title: object) -> str:
    return " ".join(str(title).casefold().split())


def recent_titles(working_dir: WorkingDir, today: dt.date, days: int = REPEAT_DAYS) -> list[str]:
    """Titles suggested on `today` and the `days - 1` days before it."""
    titles: list[str] = []
    for back in range(days):
        for topic in read_topics(interests_file(working_dir, today - dt.timedelta(days=back))):
            titles.append(str(topic["title"]))
    return titles


def write_interests(
    working_dir: WorkingDir, today: dt.date, suggested: list[Interest], writer: MemoryWriter
) -> Path | None:
    """Add new topics to today's file (≤ 3 in all, no title of the last 7 days); its path if written."""
    path = interests_file(working_dir, today)
    kept = read_topics(path)
    seen = {_key(t) for t in recent_titles(working_dir, today)}
    added = 0
    for interest in suggested:
        if len(kept) >= MAX_TOPICS:
            break
        if _key(interest.title) in seen:
            continue
        seen.add(_key(interest.title))
        kept.append(
            {
                "title": interest.title.strip(),
                "reason": interest.reason.strip(),
                "evidence": interest.evidence,
                "keywords": [k.strip() for k in interest.keywords if k.strip()],
            }
        )
        added += 1
    if not added:
        return None
    data = {"date": f"{today:%Y-%m-%d}", "topics": kept}
    write_memory_file(
        writer, path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True), "dream"
    )
    return path


def render_interests(
    working_dir: WorkingDir, language: str = "", today: dt.date | None = None
) -> str:
    """The latest interests (of the last 30 days) as text for `/interests`."""
    day = today or dt.date.today()
    for back in range(LOOKBACK_DAYS):
        current = day - dt.timedelta(days=back)
        topics = read_topics(interests_file(working_dir, current))
        if topics:
            break
    else:
        return prompts.prompt("interests_none", language).strip()
    lines = [prompts.prompt("interests_title", language, date=f"{current:%Y-%m-%d}").strip()]
    for number, topic in enumerate(topics, start=1):
        reason = str(topic.get("reason") or "").strip()
        lines.append(f"{number}. {topic['title']}" + (f" — {reason}" if reason else ""))
        keywords = ", ".join(str(k) for k in topic.get("keywords") or [])
        evidence = " ".join(f"[[{e}]]" for e in topic.get("evidence") or [])
        extra = " · ".join(part for part in (keywords, evidence) if part)
        if extra:
            lines.append(f"   {extra}")
    return "\n".join(lines)
