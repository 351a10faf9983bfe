"""The text layer of a PDF resource, by pypdf (imported here only: it costs ~0.4 s).

Only the pages the model can see are read: from the first page on until the head is full and
from the last page back until the tail is, so a 2,000-page PDF costs no more than a short one. A
PDF without a text layer (a scan), an encrypted one and a damaged one are refused with what to do.
"""

from __future__ import annotations

import io
import logging

from remecli.knowledge.resources.extract import ResourceRefused

log = logging.getLogger(__name__)
PAGES_OMITTED = "[… pages {first}–{last} left out …]"


def pdf_text(data: bytes, label: str, limit: int) -> tuple[str, bool]:
    """(the text of the pages read, True when pages in the middle were left out)."""
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its repair warnings are not ours
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ResourceRefused(
                f"{label} is a password-protected PDF; save a copy without the password"
            )
        count = len(reader.pages)
        head, tail, first_unread, last_unread = _read_pages(reader, count, limit)
    except ResourceRefused:
        raise
    except Exception as exc:  # a damaged file breaks pypdf in many ways
        log.info("pdf %s unreadable: %s", label, exc)
        raise ResourceRefused(
            f"{label} is not a readable PDF ({type(exc).__name__}); open it and save it again"
        ) from None
    if not "".join(head + tail).strip():
        raise ResourceRefused(
            f"{label} has no text layer (a scan?); run OCR on it (e.g. ocrmypdf) and ingest that"
        )
    middle = []
    if first_unread <= last_unread:
        middle = [PAGES_OMITTED.format(first=first_unread + 1, last=last_unread + 1)]
    pages = (page.strip() for page in (*head, *middle, *reversed(tail)))
    text = "\n\n".join(page for page in pages if page)
    return f"({count} page{'s' if count != 1 else ''})\n{text}", bool(middle)


def _read_pages(reader: object, count: int, limit: int) -> tuple[list[str], list[str], int, int]:
    """Pages read from the front until `limit` chars, from the back until `limit // 2`; and the
    first and last index of the pages never read (first > last: all were read)."""
    pages = reader.pages  # type: ignore[attr-defined]
    head: list[str] = []
    tail: list[str] = []
    front, back = 0, count - 1
    size = 0
    while front <= back and size < limit:
        head.append(pages[front].extract_text() or "")
        size += len(head[-1])
        front += 1
    size = 0
    while front <= back and size < limit // 2:
        tail.append(pages[back].extract_text() or "")
        size += len(tail[-1])
        back -= 1
    return head, tail, front, back
