"""Wikilink parsing: every form, frontmatter, and code is never a link."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from remecli.notes.frontmatter import read_frontmatter
from remecli.notes.links.parse import (
    LINK_TEXT,
    WikiLink,
    link_in_value,
    link_targets,
    markdown_links,
    parse_note,
    split_link,
)


def parse_links_exactly(text: str) -> list[WikiLink]:
    """Reference reading: every link of a whole note by one full markdown-it parse (slow)."""
    note = read_frontmatter(text)
    front = note.frontmatter.split("\n") if note.has_frontmatter else []
    links = [
        link
        for offset, line in enumerate(front)
        for match in LINK_TEXT.finditer(line)
        if (link := split_link(match.group(1), offset + 2)) is not None
    ]
    return links + markdown_links(note.blanked())


def targets(text: str) -> list[tuple[str, str, str, int]]:
    return [(x.target, x.anchor, x.alias, x.line) for x in parse_note(text).links]


def test_every_link_form_with_its_line() -> None:
    text = (
        "# Title\n"
        "See [[memory/2025-01-31.md]] and [[memory/x.md#L9-L12]].\n"
        "Also [[digest/wiki/a|the A note]], [[Note name]] and [[Card#Heading|shown]].\n"
        "Self [[#L3]].\n"
    )
    assert targets(text) == [
        ("memory/2025-01-31.md", "", "", 2),
        ("memory/x.md", "L9-L12", "", 2),
        ("digest/wiki/a", "", "the A note", 3),
        ("Note name", "", "", 3),
        ("Card", "Heading", "shown", 3),
        ("", "L3", "", 4),
    ]


def test_code_spans_fences_and_indented_code_are_not_links() -> None:
    text = (
        "Real [[one]] but `[[span]]` and ``[[double ` span]]``.\n"
        "\n"
        "```python\n"
        "x = '[[fence]]'\n"
        "```\n"
        "~~~\n[[tilde]]\n~~~\n"
        "\n"
        "    [[indented code]]\n"
        "\n"
        "Escaped \\[[not]] and after [[two]].\n"
    )
    assert [link.target for link in parse_note(text).links] == ["one", "two"]


def test_frontmatter_fields_and_links() -> None:
    text = (
        "---\nname: Deploy  steps\ndescription: >-\n  How we ship\n"
        'source_conversation: "[[sessions/a.jsonl#L1-L40]]"\n---\n'
        "# Deploy\n[[Other]]\n"
    )
    note = parse_note(text)
    assert (note.name, note.description) == ("Deploy steps", "How we ship")
    assert targets(text) == [("sessions/a.jsonl", "L1-L40", "", 5), ("Other", "", "", 8)]


def test_broken_frontmatter_is_only_text() -> None:
    assert parse_note("---\nname: [unclosed\n---\nbody [[x]]\n").name == ""
    assert parse_note("---\nno closing fence [[y]]\n").links[0].target == "y"


def test_table_cells_use_an_escaped_pipe_for_the_alias() -> None:
    text = "| note | why |\n|---|---|\n| [[digest/a\\|A]] | `[[no]]` |\n"
    assert targets(text) == [("digest/a", "", "A", 3)]


def test_links_in_lists_quotes_headings_and_html_blocks() -> None:
    text = "## About [[H]]\n\n> quoted [[Q]]\n\n- item [[L]]\n  continued [[C]]\n<div>\n[[D]]\n</div>\n"
    assert [(x.target, x.line) for x in parse_note(text).links] == [
        ("H", 1),
        ("Q", 3),
        ("L", 5),
        ("C", 6),
        ("D", 8),
    ]


def test_blank_lines_inside_an_html_comment_keep_it_one_block() -> None:
    text = "<!--\n\n`code [[H]]\nspan` [[I]]\n-->\n\n`[[J]]`\n"
    assert [link.target for link in parse_note(text).links] == ["H", "I"]
    assert parse_note(text).links == parse_links_exactly(text)


def test_a_frontmatter_value_and_a_section_give_their_links() -> None:
    link = link_in_value("[[sessions/a.jsonl#L3-L9]]")
    assert link is not None and (link.target, link.anchor) == ("sessions/a.jsonl", "L3-L9")
    assert link_in_value("see [[x]]") is None and link_in_value(None) is None
    section = "- [[memory/a.md]]\n- [[memory/b.md#L2|b]] and `[[not/code.md]]`\n- [[memory/a.md]]\n"
    assert link_targets(section) == ["memory/a.md", "memory/b.md"]


def test_raw_round_trips() -> None:
    link = WikiLink("a/b", "L1-L2", "x", 1)
    assert link.raw == "[[a/b#L1-L2|x]]"
    assert parse_note(link.raw).links[0] == link


fragment = st.sampled_from(
    [
        "plain words",
        "[[Note A]]",
        "[[memory/x.md#L1-L2|alias]]",
        "**bold [[B]]**",
        "- list [[C]]",
        "> quote [[D]]",
        "    indented [[E]]",
        "\t[[tab]]",
        "```\n[[in fence]]\n```",
        "## head [[F]]",
        "1. [[G]] numbered",
        "",
        "---",
        "<!-- c -->",
        "[[a]][[b]] [[c|d]]",
        "\\[[escaped]]",
        "`code [[H]]",
        "span` [[I]]",
        "- [ ] task [[J]]",
        "~~~",
        "````",
        "  - nested [[K]]",
        "> ```",
        "<!--",
        "-->",
        "<pre>",
        "</pre>",
        "| a | [[T\\|x]] |",
        "|---|---|",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(fragment, max_size=16))
def test_the_fast_path_finds_what_the_parser_finds(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    assert parse_note(text).links == parse_links_exactly(text)
