"""ls and read: sorting, limits, paging, binary, non-UTF-8, images."""

from __future__ import annotations

import base64
import struct
import zlib

from remecli.tools.ls import ls
from remecli.tools.read import read
from tests.tools.conftest import make_ctx


def _png(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", len(header))
        + chunk
        + struct.pack(">I", zlib.crc32(chunk))
        + b"\x00" * 40
    )


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


async def test_ls_sorted_with_folder_marks(ctx) -> None:
    for name in ("b.txt", "A.md", "c"):
        (ctx.workspace / name).write_text("x")
    (ctx.workspace / "sub").mkdir()
    text = (await ls(ctx)).text
    assert text.split("\n")[1:] == ["A.md", "b.txt", "c", "sub/"]


async def test_ls_limit_notice_and_errors(workspace) -> None:
    ctx = make_ctx(workspace, ls_limit=3)
    for i in range(10):
        (workspace / f"f{i}").write_text("")
    text = (await ls(ctx)).text
    assert "[Showing 3 of 10 entries" in text and "f3" not in text
    assert len((await ls(ctx, limit="5")).text.split("\n")) == 7  # header + 5 + notice
    assert (await ls(ctx, "missing")).is_error
    assert "is a file" in (await ls(ctx, "f1")).text


async def test_read_numbered_lines_and_paging(workspace) -> None:
    ctx = make_ctx(workspace, read_max_lines=10)
    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 26)))
    text = (await read(ctx, "big.txt")).text
    assert text.startswith("     1\tline 1\n")
    assert "[Showing lines 1-10 of 25. Use offset=11 to continue.]" in text
    text = (await read(ctx, "big.txt", offset=21)).text
    assert "line 25" in text and "[Showing lines 21-25 of 25.]" in text
    text = (await read(ctx, "big.txt", offset="3", limit=2.0)).text
    assert "line 3\n" in text and "line 4" in text and "line 5" not in text
    result = await read(ctx, "big.txt", offset=99)
    assert result.is_error and "25 lines" in result.text


async def test_read_whole_small_file_has_no_notice(ctx) -> None:
    (ctx.workspace / "s.txt").write_text("a\nb")
    assert (await read(ctx, "s.txt")).text == "     1\ta\n     2\tb"


async def test_read_byte_cap_on_huge_file(workspace) -> None:
    ctx = make_ctx(workspace, read_max_bytes=2_000)
    (workspace / "huge.log").write_text(
        "".join(f"{i:08d} " + "x" * 90 + "\n" for i in range(200_000))
    )
    text = (await read(ctx, "huge.log")).text
    assert len(text.encode()) < 2_300
    assert "of 200000. Use offset=" in text


async def test_read_missing_binary_folder(ctx) -> None:
    (ctx.workspace / "notes.txt").write_text("x")
    result = await read(ctx, "note.txt")
    assert result.is_error and "Did you mean: notes.txt" in result.text
    (ctx.workspace / "blob.bin").write_bytes(bytes(range(256)) * 10)
    result = await read(ctx, "blob.bin")
    assert result.is_error and "binary" in result.text
    assert (await read(ctx, ".")).is_error


async def test_read_non_utf8_and_bom_and_crlf(ctx) -> None:
    (ctx.workspace / "latin.txt").write_bytes("café\nna\xefve\n".encode("latin-1"))
    text = (await read(ctx, "latin.txt")).text
    assert "caf\ufffd" in text and "not UTF-8" in text
    (ctx.workspace / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\r\nworld\r\n")
    assert (await read(ctx, "bom.txt")).text == "     1\thello\n     2\tworld"
    (ctx.workspace / "utf16.txt").write_text("wide text\n", encoding="utf-16")
    assert "wide text" in (await read(ctx, "utf16.txt")).text


async def test_read_image_described_or_returned(workspace) -> None:
    (workspace / "pic.png").write_bytes(_png(640, 480))
    (workspace / "photo.jpg").write_bytes(_jpeg(320, 200))
    (workspace / "anim.gif").write_bytes(b"GIF89a" + struct.pack("<HH", 16, 8) + b"\x00" * 20)
    (workspace / "img.webp").write_bytes(
        b"RIFF"
        + b"\x00" * 4
        + b"WEBPVP8X"
        + b"\x00" * 8
        + (99).to_bytes(3, "little")
        + (49).to_bytes(3, "little")
    )
    ctx = make_ctx(workspace)
    assert "PNG image, 640x480 pixels" in (await read(ctx, "pic.png")).text
    assert "JPEG image, 320x200 pixels" in (await read(ctx, "photo.jpg")).text
    assert "GIF image, 16x8 pixels" in (await read(ctx, "anim.gif")).text
    assert "WEBP image, 100x50 pixels" in (await read(ctx, "img.webp")).text
    ctx.accepts_images = True
    result = await read(ctx, "pic.png")
    [image] = result.attachments
    assert image.media_type == "image/png" and image.name == "pic.png"
    assert base64.b64decode(image.data) == (workspace / "pic.png").read_bytes()


async def test_read_outside_workspace_and_bad_args(ctx, tmp_path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("far away\n")
    assert "far away" in (await read(ctx, str(outside))).text
    assert "far away" in (await read(ctx, "../outside.txt")).text
    result = await read(ctx, "x.txt", limit=0)
    assert result.is_error and "`limit` must be at least 1" in result.text


async def test_read_refuses_devices(ctx) -> None:
    result = await read(ctx, "/dev/null")
    assert result.is_error and "not a regular file" in result.text
