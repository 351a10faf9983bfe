"""`apply_edit`: the one edit semantics the agent's edit, the summarizer's edit and memory_edit share."""

from __future__ import annotations

import pytest

from remecli.notes.matching import EditRefused, apply_edit


def test_exact_match_is_replaced_and_its_line_reported() -> None:
    done = apply_edit("# Notes\n\n- host stg-7\n", "stg-7", "stg-8")
    assert done.content == "# Notes\n\n- host stg-8\n"
    assert (done.line, done.tolerant) == (3, False)


def test_whitespace_and_quotes_are_tolerated_when_nothing_matches_exactly() -> None:
    done = apply_edit("say \u201chello\u201d  to   them\n", 'say "hello" to them', "wave")
    assert done.content == "wave\n" and done.tolerant


@pytest.mark.parametrize(
    ("content", "old", "reason"),
    [
        ("a\nb\n", "zzz", "not_found"),
        ("x = 1\nx = 1\n", "x = 1", "ambiguous"),
        ("same\n", "same", "unchanged"),
    ],
)
def test_refusals_say_why(content: str, old: str, reason: str) -> None:
    with pytest.raises(EditRefused) as caught:
        apply_edit(content, old, "same" if reason == "unchanged" else "new")
    assert caught.value.reason == reason
    if reason == "ambiguous":
        assert caught.value.lines == [1, 2]


def test_whole_lines_refuses_a_match_inside_a_longer_line() -> None:
    content = "- deploy on Fridays (and Mondays now)\n"
    assert apply_edit(content, "- deploy on Fridays", "- deploy daily").tolerant is False
    with pytest.raises(EditRefused) as caught:
        apply_edit(content, "- deploy on Fridays", "- deploy daily", whole_lines=True)
    assert caught.value.reason == "partial_line"


def test_bom_and_crlf_are_kept() -> None:
    content = "\ufeff# Title\r\nline one\r\nline two\r\n"
    done = apply_edit(content, "line one\nline two", "line 1\nline 2")
    assert done.content == "\ufeff# Title\r\nline 1\r\nline 2\r\n"
    assert done.line == 2
