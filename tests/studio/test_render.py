"""Notes rendered for Studio: raw HTML and unsafe links never pass, every wikilink form becomes
a link to where it resolves (or is marked dangling), blocks carry their line in the file."""

from __future__ import annotations

from remecli.surfaces.studio.render import render_markdown, render_note, render_plain

PLACES = {"Deploy checklist": "memory/2025-01-31/deploy.md", "memory/a.md": "memory/a.md"}


def resolve(target: str) -> str | None:
    return PLACES.get(target)


def test_raw_html_and_unsafe_links_are_escaped() -> None:
    out = render_markdown(
        '<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n'
        '[click](javascript:alert(3)) and [[x" onclick="alert(4)]]\n',
        resolve,
    )
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<img" not in out and "&lt;img" in out
    assert 'href="javascript:' not in out  # left as text, never a link
    assert 'onclick="' not in out


def test_every_wikilink_form_becomes_a_link_or_is_marked_dangling() -> None:
    out = render_markdown(
        "See [[Deploy checklist]], [[Deploy checklist|the list]], [[memory/a.md#L3-L9]],\n"
        "[[memory/a.md#Rollback plan]] and [[nowhere]]. `[[in code]]`\n",
        resolve,
    )
    assert '<a class="wikilink" href="#/note/memory/2025-01-31/deploy.md"' in out
    assert ">the list</a>" in out
    assert 'href="#/note/memory/a.md?line=3"' in out
    assert 'href="#/note/memory/a.md?heading=Rollback%20plan"' in out
    assert '<a class="wikilink dangling"' in out and ">nowhere</a>" in out
    assert "<code>[[in code]]</code>" in out


def test_blocks_carry_their_line_in_the_file_and_fields_show_links() -> None:
    text = (
        '---\nname: Card\nsource_conversation: "[[memory/a.md#L1-L2]]"\ntags: [a, b]\n---\n'
        "# Title\n\nBody line.\n"
    )
    note = render_note(text, resolve)
    assert '<h1 data-line="6">Title</h1>' in note["html"]
    assert '<p data-line="8">Body line.</p>' in note["html"]
    fields = {f["key"]: f["html"] for f in note["fields"]}
    assert fields["tags"] == "a, b"
    assert 'href="#/note/memory/a.md?line=1"' in fields["source_conversation"]
    assert render_plain('{"a": "<b>"}\nsecond') == (
        '<ol class="plain-lines"><li data-line="1" value="1">{&quot;a&quot;: &quot;&lt;b&gt;'
        '&quot;}</li><li data-line="2" value="2">second</li></ol>'
    )


def test_html_comments_are_left_out_and_code_keeps_them() -> None:
    day = (
        "# 2025-01-31\n\n<!-- cards:auto -->\n- [[Deploy checklist|Deploy]]: how we ship\n"
        "<!-- /cards:auto -->\n\nIn code: `<!-- kept -->` and <b>escaped</b>\n"
    )
    out = render_markdown(day, resolve)
    assert "cards:auto" not in out and "&lt;!--" not in out.split("<code>")[0]
    assert 'href="#/note/memory/2025-01-31/deploy.md"' in out  # the index inside still links
    assert "<code>&lt;!-- kept --&gt;</code>" in out
    assert "&lt;b&gt;escaped&lt;/b&gt;" in out
