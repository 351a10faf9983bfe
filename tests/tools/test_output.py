"""The shared cleaning / tail-truncation helper."""

from __future__ import annotations

from remecli.tools._output import TailCollector, clean_output, strip_ansi, tail_truncate


def test_strip_ansi_keeps_text_tabs_and_newlines() -> None:
    raw = "\x1b[1;32mok\x1b[0m\tdone\n\x1b]0;title\x07next\x1b(B\n"
    assert strip_ansi(raw) == "ok\tdone\nnext\n"


def test_carriage_return_overwrites_collapse() -> None:
    assert clean_output("10%\r50%\r100%\nnext\r\n") == "100%\nnext\n"


def test_nothing_cut_when_within_limits() -> None:
    out = tail_truncate("a\nb\n", max_bytes=100, max_lines=10)
    assert out.render() == "a\nb" and not out.truncated


def test_line_limit_keeps_last_lines() -> None:
    out = tail_truncate("\n".join(str(i) for i in range(1, 21)), max_bytes=10_000, max_lines=5)
    assert out.text == "16\n17\n18\n19\n20"
    assert out.truncated and "lines 16-20 of 20" in out.notice()


def test_byte_limit_and_a_single_huge_line() -> None:
    out = tail_truncate("x" * 5000 + "END", max_bytes=100, max_lines=10)
    assert out.text.endswith("END") and len(out.text.encode()) <= 100 and out.truncated


def test_multibyte_text_is_not_split_mid_character() -> None:
    out = tail_truncate("é" * 1000, max_bytes=101, max_lines=10)
    assert set(out.text) == {"é"}


def test_collector_keeps_a_bounded_tail_and_counts_dropped_lines() -> None:
    collector = TailCollector(keep_bytes=1_000)
    for start in range(0, 10_000, 100):
        collector.feed("".join(f"{i}\n" for i in range(start, start + 100)).encode())
    out = collector.result(max_bytes=200, max_lines=10)
    assert out.text.split("\n")[-1] == "9999"
    assert out.total_lines == 10_000 and out.first_shown == 9_991
