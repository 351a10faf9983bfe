"""What the model is shown of a PDF, an HTML page and a source file (`resources.extract`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from remecli.knowledge.resources.extract import ResourceRefused, extract, is_resource_name
from tests.resources.pdf_bytes import tiny_pdf


def test_a_pdf_is_read_from_its_text_layer(tmp_path) -> None:
    pdf = tmp_path / "plan.pdf"
    pdf.write_bytes(
        tiny_pdf([["Atlas migration plan", "Move to PostgreSQL 16 (March)"], ["Rollback: pg 15"]])
    )
    read = extract(pdf)
    assert read.kind == "pdf" and not read.clipped
    assert read.text == "(2 pages)\nAtlas migration plan\nMove to PostgreSQL 16 (March)\n\n" + (
        "Rollback: pg 15"
    )


def test_a_long_pdf_is_read_only_where_the_model_looks(tmp_path) -> None:
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(tiny_pdf([[f"page {n} " + "word " * 90] * 8 for n in range(400)]))
    read = extract(pdf)
    assert read.clipped and read.text.startswith("(400 pages)\npage 0 ")
    assert "page 399" in read.text and "page 200 " not in read.text


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (tiny_pdf([[]]), "no text layer (a scan?); run OCR"),
        (b"%PDF-1.4\n1 0 obj garbage", "is not a readable PDF"),
    ],
    ids=["scan", "damaged"],
)
def test_a_pdf_without_text_is_refused_with_what_to_do(tmp_path, content, says) -> None:
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(content)
    with pytest.raises(ResourceRefused) as refused:
        extract(pdf)
    assert says in str(refused.value)


def test_pypdf_is_imported_only_when_a_pdf_is_read() -> None:
    code = (
        "import sys, remecli.knowledge.resources.cards, remecli.knowledge.resources.extract; "
        "print('pypdf' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "False", shown.stderr


def test_html_keeps_inline_code_inline_and_says_the_title_once(tmp_path) -> None:
    page = tmp_path / "deploy.html"
    page.write_text(
        "<html><head><title>Deploy guide</title></head><body><h1>Deploy guide</h1>"
        "<p>Run <code>make deploy</code>, then read <a href='/logs'>the logs</a>.</p>"
        "<ul><li>staging first</li><li>then <b>prod</b></li></ul></body></html>",
        encoding="utf-8",
    )
    text = extract(page).text
    assert text == (
        "Title: Deploy guide\n\nRun make deploy, then read the logs.\nstaging first\nthen prod"
    )


def test_source_code_is_a_resource(tmp_path) -> None:
    script = tmp_path / "backup.py"
    script.write_text('"""Nightly backup of the atlas database."""\n', encoding="utf-8")
    assert is_resource_name("backup.py") and is_resource_name("deploy.sh")
    read = extract(script)
    assert read.kind == "code" and "Nightly backup" in read.text
    assert not is_resource_name("photo.png")
    with pytest.raises(ResourceRefused, match="cannot read this type of file; supported: .*PDF"):
        extract(tmp_path / "photo.png")


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("deep.json", "[" * 50_000 + "]" * 50_000, "JSON"),
        ("deep.jsonl", '{"a": 1}\n' + "[" * 50_000 + "]" * 50_000 + "\n", "JSON Lines"),
        ("deep.yaml", "a: " + "[" * 50_000 + "]" * 50_000 + "\n", "YAML"),
    ],
)
def test_a_file_nested_too_deeply_is_refused_in_one_line(tmp_path, name, content, kind) -> None:
    """50,000 levels of `[`: Python's parsers recurse; a RecursionError traceback ended
    `remecli ingest FOLDER` before (issue 39.8)."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ResourceRefused, match=f"is {kind} nested too deeply to read; flatten it"):
        extract(path, name)
