"""The note merges git runs through `python -m remecli.sync.merge_driver` (real `git
merge-file` underneath)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from remecli.notes.frontmatter import read_frontmatter
from remecli.sync.textmerge import has_conflict, merge_lines, merge_note

LABELS = ("laptop", "desktop")
BASE = "# MEMORY\n\n- a\n- b\n- c\n- d\n- e\n"


def test_different_lines_merge_and_appends_on_both_sides_are_both_kept() -> None:
    ours = BASE.replace("- a", "- A") + "- from the laptop\n"
    theirs = BASE.replace("- e", "- E") + "- from the desktop\n"
    merged = merge_lines(BASE, ours, theirs, LABELS)
    assert not merged.conflicted
    assert (
        merged.text
        == "# MEMORY\n\n- A\n- b\n- c\n- d\n- E\n- from the desktop\n- from the laptop\n"
    )


def test_the_same_line_changed_twice_is_kept_from_both_sides() -> None:
    merged = merge_lines(BASE, BASE.replace("- c", "- c1"), BASE.replace("- c", "- c2"), LABELS)
    assert merged.conflicted and has_conflict(merged.text)
    assert "<<<<<<< laptop\n- c1\n=======\n- c2\n>>>>>>> desktop\n" in merged.text
    assert merged.text.startswith("# MEMORY\n\n- a\n- b\n") and merged.text.endswith("- d\n- e\n")


def test_one_side_appends_after_a_line_the_other_changed() -> None:
    merged = merge_lines(BASE, BASE + "- f\n", BASE.replace("- e", "- E"), LABELS)
    assert merged == merge_lines(BASE, BASE.replace("- e", "- E"), BASE + "- f\n", LABELS)
    assert merged.text.endswith("- d\n- E\n- f\n") and not merged.conflicted


def test_two_files_added_on_both_sides_merge_against_their_common_lines() -> None:
    merged = merge_lines(None, "# MEMORY\n\n- x\n", "# MEMORY\n\n- y\n", LABELS)
    assert merged.text == "# MEMORY\n\n- x\n- y\n" and not merged.conflicted


def test_frontmatter_lists_merge_as_sets_and_fields_take_one_sides_change() -> None:
    base = "---\nname: Deploy\ntags: [a, b]\nsources: [s1]\n---\nbody\n"
    ours = "---\nname: Deploy\ntags: [a, b, c]\nsources: [s1, s2]\n---\nbody\n"
    theirs = "---\nname: Deploying\ntags: [b, d]\nsources: [s1, s3]\n---\nbody\nmore\n"
    merged = merge_note("memory/2026-01-05/deploy.md", base, ours, theirs, LABELS)
    note = read_frontmatter(merged.text)
    assert note.meta == {
        "name": "Deploying",
        "tags": ["b", "c", "d"],
        "sources": ["s1", "s2", "s3"],
    }
    assert note.body == "body\nmore\n" and not merged.conflicted


def test_a_field_changed_differently_on_both_sides_is_a_conflict() -> None:
    base = "---\nname: Deploy\n---\nbody\n"
    merged = merge_note(
        "digest/wiki/d.md",
        base,
        base.replace("Deploy", "Ship"),
        base.replace("Deploy", "Push"),
        LABELS,
    )
    assert merged.conflicted and "name: Ship" in merged.text and "name: Push" in merged.text


def test_a_day_pages_card_list_merges_as_a_set() -> None:
    page = "# 2026-01-05\n\n<!-- cards:auto -->\n{}<!-- /cards:auto -->\n\nmy notes\n"
    base = page.format("- [[memory/2026-01-05/a.md|A]]\n")
    ours = page.format("- [[memory/2026-01-05/a.md|A]]\n- [[memory/2026-01-05/b.md|B]]\n")
    theirs = page.format("- [[memory/2026-01-05/c.md|C]]\n").replace("my notes", "my notes!")
    merged = merge_note("memory/2026-01-05.md", base, ours, theirs, LABELS)
    assert merged.text == page.format(
        "- [[memory/2026-01-05/b.md|B]]\n- [[memory/2026-01-05/c.md|C]]\n"
    ).replace("my notes", "my notes!")


def test_the_driver_process_merges_in_place_and_leaves_binary_to_sync(tmp_path: Path) -> None:
    files = {}
    for name, text in (("o", BASE), ("a", BASE + "- ours\n"), ("b", BASE + "- theirs\n")):
        files[name] = tmp_path / name
        files[name].write_text(text, encoding="utf-8")
    driver = [sys.executable, "-m", "remecli.sync.merge_driver", "laptop", "desktop"]
    args = [str(files[n]) for n in "oab"]
    done = subprocess.run([*driver, *args, "MEMORY.md"], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert files["a"].read_text(encoding="utf-8") == BASE + "- ours\n- theirs\n"
    files["b"].write_bytes(b"%PDF\0binary")
    done = subprocess.run([*driver, *args, "resource/x.pdf"], capture_output=True, timeout=60)
    assert done.returncode == 1


def test_a_line_changed_on_one_side_among_lines_the_other_inserted_around_it() -> None:
    """The soak's conflict (benchmarks/sync_soak.py): the laptop appended lines before and
    after a line the desktop edited, while the desktop appended its own; git merge-file calls
    that one conflict, and MEMORY.md filled with markers. Nothing of either side is lost."""
    base = "# MEMORY\n\n- l1\n- d4\n- d10\n"
    ours = "# MEMORY\n\n- l1\n- d4\n- l8\n- d10\n- l15\n"
    theirs = "# MEMORY\n\n- l1\n- d4\n- d10 edited\n- d17\n"
    for first, second, labels in ((ours, theirs, LABELS), (theirs, ours, LABELS[::-1])):
        merged = merge_lines(base, first, second, labels)
        assert not merged.conflicted, merged.text
        lines = merged.text.splitlines()
        assert sorted(lines[2:]) == sorted(
            ["- l1", "- d4", "- l8", "- d10 edited", "- l15", "- d17"]
        )
        assert lines.index("- l8") < lines.index("- d10 edited") < lines.index("- l15")


def test_neighbouring_lines_changed_on_each_side_merge_the_same_line_does_not() -> None:
    merged = merge_lines(
        BASE, BASE.replace("- c", "- c1"), BASE.replace("- c\n- d", "- c\n- d2"), LABELS
    )
    assert not merged.conflicted  # different lines: merged
    assert merged.text == BASE.replace("- c\n- d", "- c1\n- d2")
    both = merge_lines(
        BASE, BASE.replace("- c\n", "- x\n- c1\n"), BASE.replace("- c", "- c2"), LABELS
    )
    assert both.conflicted and "- c1" in both.text and "- c2" in both.text
