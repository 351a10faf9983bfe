"""File helpers for the file tools: image headers, sizes (text or binary: the file service)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_SNIFF_BYTES = 8192


def read_head(path: Path, size: int = _SNIFF_BYTES) -> bytes:
    """The first `size` bytes of a file."""
    with path.open("rb") as handle:
        return handle.read(size)


@dataclass
class ImageInfo:
    """What an image header says."""

    media_type: str
    width: int | None
    height: int | None


def sniff_image(head: bytes) -> ImageInfo | None:
    """Recognise PNG, JPEG, GIF and WebP from their first bytes; None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return ImageInfo("image/png", width, height)
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        width, height = struct.unpack("<HH", head[6:10])
        return ImageInfo("image/gif", width, height)
    if head.startswith(b"\xff\xd8\xff"):
        width, height = _jpeg_size(head)
        return ImageInfo("image/jpeg", width, height)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        width, height = _webp_size(head)
        return ImageInfo("image/webp", width, height)
    return None


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    """Walk JPEG segments up to the first start-of-frame marker."""
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            return None, None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length field
            pos += 2
            continue
        length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None, None


def _webp_size(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None, None


def human_size(size: int) -> str:
    """1536 -> '1.5 KB'."""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"
