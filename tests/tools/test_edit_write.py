"""edit and write: exact and tolerant matches, uniqueness, BOM/CRLF, atomic writes."""

from __future__ import annotations

import os
import stat

from remecli.notes.matching import find_matches
from remecli.tools.edit import edit
from remecli.tools.write import write


async def test_exact_edit_returns_a_diff(ctx) -> None:
    path = ctx.workspace / "app.py"
    path.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    result = await edit(ctx, "app.py", "    return 2", "    return 3")
    assert not result.is_error
    assert path.read_text().endswith("return 3\n")
    text = result.text
    assert "-    return 2" in text and "+    return 3" in text and "at line 6" in text


async def test_ambiguous_edit_names_count_and_lines(ctx) -> None:
    path = ctx.workspace / "dup.txt"
    original = "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"
    path.write_text(original)
    result = await edit(ctx, "dup.txt", "x = 1", "x = 9")
    assert result.is_error
    assert "matches 3 times" in result.text and "lines 1, 3, 5" in result.text
    assert path.read_text() == original


async def test_missing_text_gives_the_closest_line(ctx) -> None:
    (ctx.workspace / "a.txt").write_text("alpha = compute(1)\nbeta = 2\n")
    result = await edit(ctx, "a.txt", "alpha = compute(7)", "x")
    assert result.is_error and "not found" in result.text
    assert "most similar line is 1" in result.text


async def test_tolerant_match_whitespace_and_quotes(ctx) -> None:
    path = ctx.workspace / "t.py"
    path.write_text("def f():\n        print('hi')   \n        return  1\n")
    # model used 4-space indentation, curly quotes and single spaces
    result = await edit(
        ctx, "t.py", "    print(\u2018hi\u2019)\n    return 1", "    print('bye')\n    return 2"
    )
    assert not result.is_error, result.text
    assert "ignoring whitespace" in result.text
    assert path.read_text() == "def f():\n        print('bye')\n        return 2\n"


def test_tolerant_match_mid_line() -> None:
    match = find_matches("call(a,  b)\n", "call(a, b)")
    assert match.tolerant and match.spans == [(0, 11)]


async def test_crlf_and_bom_preserved(ctx) -> None:
    path = ctx.workspace / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    result = await edit(ctx, "win.txt", "two\nthree", "2\n3")
    assert not result.is_error, result.text
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"


async def test_non_utf8_bytes_survive_an_edit(ctx) -> None:
    path = ctx.workspace / "latin.txt"
    path.write_bytes(b"caf\xe9\nkeep\n")
    result = await edit(ctx, "latin.txt", "keep", "kept")
    assert not result.is_error
    assert path.read_bytes() == b"caf\xe9\nkept\n"


async def test_edit_errors(ctx) -> None:
    assert "use `write`" in (await edit(ctx, "nope.txt", "a", "b")).text
    (ctx.workspace / "f.txt").write_text("same\n")
    assert (await edit(ctx, "f.txt", "", "b")).is_error
    assert "nothing to change" in (await edit(ctx, "f.txt", "same", "same")).text
    (ctx.workspace / "bin").write_bytes(b"\x00\x01\x02abc")
    assert "binary" in (await edit(ctx, "bin", "abc", "x")).text


async def test_edit_keeps_permissions_and_symlink(ctx) -> None:
    real = ctx.workspace / "script.sh"
    real.write_text("echo a\n")
    real.chmod(0o755)
    link = ctx.workspace / "link.sh"
    link.symlink_to(real)
    assert not (await edit(ctx, "link.sh", "echo a", "echo b")).is_error
    assert link.is_symlink() and real.read_text() == "echo b\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o755


async def test_write_creates_parents_and_reports_bytes(ctx) -> None:
    result = await write(ctx, "deep/er/new.txt", "héllo\n")
    assert not result.is_error
    assert (ctx.workspace / "deep/er/new.txt").read_text() == "héllo\n"
    assert "Created" in result.text and "7 bytes" in result.text
    result = await write(ctx, "deep/er/new.txt", "x")
    assert "Overwrote" in result.text and "1 bytes" in result.text
    leftovers = [name for name in os.listdir(ctx.workspace / "deep/er") if name != "new.txt"]
    assert leftovers == []


async def test_write_errors(ctx, tmp_path) -> None:
    (ctx.workspace / "afile").write_text("")
    assert (await write(ctx, "afile/child.txt", "x")).is_error
    assert (await write(ctx, ".", "x")).is_error
    outside = tmp_path / "elsewhere" / "o.txt"  # the tool writes; approval decides beforehand
    assert not (await write(ctx, str(outside), "ok")).is_error
    assert outside.read_text() == "ok"
