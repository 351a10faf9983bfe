"""Text of a resource file (`<working_dir>/resource/…`) for its card, by maintained parsers.

Markdown, text and source code are read as they are; JSON, JSONL, YAML are parsed (json, PyYAML)
and a broken file is refused with the line to fix; CSV goes through `csv` (dialect sniffed); HTML
through BeautifulSoup (scripts and styles dropped, inline elements kept inline, the title once);
PDF through pypdf (its text layer; imported only when a PDF is read: it costs ~0.4 s). Bytes are
decoded as UTF-8, else by charset-normalizer; a file with NUL bytes or no text encoding is
refused as binary. What the model sees is bounded: the head and the tail of a long text, with a
marker saying what was left out.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import yaml

TEXT_SUFFIXES = ".rst .org .adoc .tex .log .ini .toml .cfg .conf .xml .srt .vtt"
CODE_SUFFIXES = (
    ".py .pyi .js .mjs .cjs .ts .tsx .jsx .go .rs .java .kt .kts .scala .c .h .cc .cpp .hpp .cs "
    ".rb .php .swift .m .lua .pl .r .jl .sh .bash .zsh .fish .ps1 .sql .css .scss .vue .svelte "
    ".dart .ex .exs .erl .hs .ml .clj .el .vim .zig .nim .proto .graphql .tf"
)
KINDS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".ipynb": "json",
    **dict.fromkeys(TEXT_SUFFIXES.split(), "text"),
    **dict.fromkeys(CODE_SUFFIXES.split(), "code"),
}
MAX_RESOURCE_BYTES = 10_000_000  # read at all
MAX_PDF_BYTES = 100_000_000  # a PDF's images weigh; only its text layer is read
MAX_INPUT_CHARS = 24_000  # given to the model (head + tail)
CSV_MAX_ROWS = 2_000
OMITTED = "[… {count} characters left out …]"


class ResourceRefused(ValueError):
    """The file cannot become a card; the message says why and what to do (one line)."""


@dataclass(frozen=True)
class Extracted:
    """A resource's text as the model sees it."""

    kind: str
    text: str  # bounded
    digest: str  # sha256 of the file's bytes
    size: int  # bytes on disk
    clipped: bool  # the middle was left out


def kind_of(path: Path | str) -> str | None:
    """The resource kind of a file name (None: not a supported type)."""
    return KINDS.get(Path(path).suffix.lower())


def is_temp_name(name: str) -> bool:
    """True for a dotfile or an editor's temp file (never a resource, never reported)."""
    base = Path(name).name
    return not base or base.startswith((".", "~")) or base.endswith(("~", ".swp", ".tmp"))


def is_resource_name(name: str) -> bool:
    """True for a supported, visible file name (editor temp files and dotfiles are skipped)."""
    return not is_temp_name(name) and kind_of(Path(name).name) is not None


def bounded(text: str, limit: int = MAX_INPUT_CHARS) -> tuple[str, bool]:
    """`text` itself when short; else its head and tail around a marker (about `limit` chars)."""
    if len(text) <= limit:
        return text, False
    head = text[: limit * 2 // 3]
    tail = text[-(limit - len(head)) :]
    left_out = len(text) - len(head) - len(tail)
    return f"{head}\n\n{OMITTED.format(count=left_out)}\n\n{tail}", True


def decode(data: bytes, name: str) -> str:
    """The text of `data`; ResourceRefused for binary content."""
    if b"\x00" in data[:65536]:
        raise ResourceRefused(f"{name} is binary; only text files can become cards ({_types()})")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data[:1_000_000]).best()
    if best is None:
        raise ResourceRefused(
            f"{name} is not text in any encoding found; save it as UTF-8 text ({_types()})"
        )
    return str(data.decode(best.encoding, errors="replace"))


def extract(path: Path, name: str | None = None) -> Extracted:
    """Read, check and render `path` for the model; raises ResourceRefused."""
    label = name or path.name
    kind = kind_of(path)
    if kind is None:
        raise ResourceRefused(unsupported(label))
    size = path.stat().st_size
    most = MAX_PDF_BYTES if kind == "pdf" else MAX_RESOURCE_BYTES
    if size > most:
        raise ResourceRefused(
            f"{label} is {size / 1e6:.1f} MB, over the {most / 1e6:.0f} MB limit "
            f"for {kind} resources; split it into smaller files"
        )
    data = path.read_bytes()
    if kind == "pdf":
        from remecli.knowledge.resources.pdf import pdf_text

        rendered, pages_left_out = pdf_text(data, label, MAX_INPUT_CHARS)
    else:
        rendered, pages_left_out = RENDERERS[kind](decode(data, label), label), False
    shown, clipped = bounded(rendered.strip())
    if not shown.strip():
        raise ResourceRefused(f"{label} has no text to summarize; add some or remove it")
    digest = hashlib.sha256(data).hexdigest()
    return Extracted(kind, shown, digest, size, clipped or pages_left_out)


def unsupported(label: str) -> str:
    """The one-line refusal for a file type remecli cannot read."""
    return f"{label}: remecli cannot read this type of file; supported: {_types()}"


# ---------------------------------------------------------------- one renderer per kind
def _as_is(text: str, _name: str) -> str:
    return text


def _too_deep(name: str, kind: str) -> ResourceRefused:
    """A file nested deeper than Python's parsers recurse (`[[[[…` thousands deep)."""
    return ResourceRefused(f"{name} is {kind} nested too deeply to read; flatten it")


def _json(text: str, name: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=1)
    except json.JSONDecodeError as exc:
        raise ResourceRefused(
            f"{name} is not valid JSON (line {exc.lineno}: {exc.msg}); fix it"
        ) from None
    except RecursionError:
        raise _too_deep(name, "JSON") from None


def _jsonl(text: str, name: str) -> str:
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.dumps(json.loads(line), ensure_ascii=False))
        except json.JSONDecodeError as exc:
            raise ResourceRefused(
                f"{name} is not valid JSON Lines (line {number}: {exc.msg}); fix it"
            ) from None
        except RecursionError:
            raise _too_deep(name, "JSON Lines") from None
    return f"({len(records)} records, one per line)\n" + "\n".join(records)


def _yaml(text: str, name: str) -> str:
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ResourceRefused(f"{name} is not valid YAML{where}; fix it") from None
    except RecursionError:
        raise _too_deep(name, "YAML") from None
    return text  # checked; the original keeps its comments


def _csv(text: str, name: str) -> str:
    sample = text[:20_000]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, ",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if name.lower().endswith(".tsv") else csv.excel
    rows: list[str] = []
    total = 0
    try:
        for row in csv.reader(io.StringIO(text), dialect):
            total += 1
            if len(rows) < CSV_MAX_ROWS:
                rows.append(" | ".join(cell.strip() for cell in row))
    except csv.Error as exc:
        raise ResourceRefused(f"{name} is not valid CSV ({exc}); fix it") from None
    header = f"({total} rows; the first is usually the header)"
    if total > len(rows):
        header += f" (first {len(rows)} shown)"
    return header + "\n" + "\n".join(rows)


BLOCK_TAGS = (
    "address article aside blockquote br dd details div dl dt figcaption figure footer form h1 h2 "
    "h3 h4 h5 h6 header hr li main nav ol p pre section summary table td th tr ul"
)


def _html(text: str, _name: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "svg"]):
        tag.decompose()
    title = ""
    if soup.title is not None:
        title = " ".join(soup.title.get_text(" ").split())
        soup.title.decompose()  # said once, on its own line
    for tag in soup.find_all(
        BLOCK_TAGS.split()
    ):  # a block starts and ends a line; inline text flows
        tag.insert_before("\n")
        tag.insert_after("\n")
    lines = [" ".join(line.split()) for line in soup.get_text("").splitlines()]
    body = [line for line in lines if line]
    if title and body and body[0] == title:  # the page's first heading repeats its title
        body = body[1:]
    return (f"Title: {title}\n\n" if title else "") + "\n".join(body)


RENDERERS = {
    "markdown": _as_is,
    "text": _as_is,
    "json": _json,
    "jsonl": _jsonl,
    "yaml": _yaml,
    "csv": _csv,
    "html": _html,
    "code": _as_is,
}


def _types() -> str:
    return (
        "Markdown, text, source code (.py, .js, …), JSON/JSONL, CSV/TSV, YAML, HTML and PDF "
        "(with a text layer)"
    )
