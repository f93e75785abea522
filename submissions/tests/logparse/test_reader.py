from __future__ import annotations

import gzip
import tracemalloc
import zlib

import pytest

from submissions.logparse import LogError, parse_log
from submissions.logparse import reader as reader_module
from testing.logs import (
    FIXTURES,
    HEADER_2023,
    GeneratedLog,
    fixture_text,
    parse_fixture,
    parse_text,
)


def python_2023_lines(count: int):
    yield HEADER_2023.encode()
    rows = 0
    for i in range(1, count + 1):
        rows += 7000
        seconds = i * 10.0
        yield (
            f"10.0\t{seconds:.1f}\t700\t{rows / seconds:.0f}\t0\t0\t0\t0\t1200\t0\t0"
            f"\t{rows}\t0\t0\t0\t0\t0\n"
        ).encode()


def test_it_streams_a_large_log_without_holding_it_whole():
    count = 200_000
    source = GeneratedLog(python_2023_lines(count))
    parsed = parse_log(source)
    assert len(parsed.series) == count
    assert parsed.series.rows[-1] == count * 7000
    assert parsed.series.line[-1] == count + 1
    assert parsed.line_count == count + 1
    # The log came in pieces of at most a block: it never existed whole, here or there.
    assert source.largest_read <= reader_module.BLOCK_BYTES


def test_it_refuses_a_log_of_more_lines_than_its_line_numbers_hold(monkeypatch):
    # The series keeps line numbers in 4 bytes: past MAX_LINES (2^31 - 1) a log is refused,
    # naming the limit, rather than its numbers wrapping. A small limit stands in for it.
    monkeypatch.setattr(reader_module, "MAX_LINES", 30_000)
    with pytest.raises(LogError) as refused:
        parse_log(GeneratedLog(python_2023_lines(40_000)))
    assert "more than 30,000 lines" in str(refused.value)
    assert refused.value.line == 30_001
    parsed = parse_log(GeneratedLog(python_2023_lines(20_000)))
    assert parsed.series.line.typecode == "i" and parsed.series.line[-1] == 20_001


def test_its_memory_grows_with_the_reports_not_with_the_text():
    # Long enough (9 MB) that a few blocks of bytes in flight are small beside the whole text.
    count = 150_000
    text_bytes = sum(len(chunk) for chunk in python_2023_lines(count))
    tracemalloc.start()
    try:
        parse_log(GeneratedLog(python_2023_lines(count)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Five 8-byte columns per report plus one block of text in flight, not the whole log
    # (which as Python strings would take twice its size).
    assert peak < 5 * 8 * count * 1.5 + 4 * reader_module.BLOCK_BYTES
    assert peak < 2 * text_bytes


def test_it_reads_a_gzip_log_by_its_magic_bytes():
    plain = parse_fixture("python-2023.log")
    packed = parse_fixture("python-2023.log.gz")
    assert list(packed.series.rows) == list(plain.series.rows)
    assert packed.totals == plain.totals
    assert packed.line_count == plain.line_count


def test_it_reads_a_gzip_of_several_members():
    text = fixture_text("python-2023.log").encode()
    half = text.index(b"Insert rt:")
    data = gzip.compress(text[:half]) + gzip.compress(text[half:])
    assert parse_text(data).totals.rows == 1_000_000


def test_it_refuses_a_truncated_gzip_naming_the_last_line_read():
    text = HEADER_2023 + "".join(
        f"10.0\t{i * 10}.0\t700\t700\t0\t0\t0\t0\t1\t0\t0\t{i * 7000}\t0\t0\t0\t0\t0\n"
        for i in range(1, 20001)
    )
    data = gzip.compress(text.encode())
    with pytest.raises(LogError) as error:
        parse_text(data[: len(data) // 2])
    message = str(error.value)
    assert message.startswith("the .gz file is truncated after line ")
    assert message.endswith(": upload the complete file")
    lines = int(message.split("after line ")[1].split(":")[0].replace(",", ""))
    assert 1000 < lines < 20001


def test_it_refuses_a_damaged_gzip():
    data = bytearray(gzip.compress(fixture_text("python-2023.log").encode()))
    data[20:40] = b"\xff" * 20
    with pytest.raises(LogError) as error:
        parse_text(bytes(data))
    assert str(error.value).startswith("the .gz file is damaged after line 0 (")


def test_it_refuses_a_gzip_that_expands_past_the_limit():
    data = gzip.compress(b"\n" * 5000)
    with pytest.raises(LogError) as error:
        parse_text(data, max_expanded_bytes=1000)
    # Byte 1,001, the first past the limit, is the end of line 1,001: the read stops there.
    assert str(error.value) == (
        "line 1,001: the log expands past 1,000 bytes: upload only this run's output"
    )


def test_it_refuses_a_plain_log_past_the_limit():
    with pytest.raises(LogError) as error:
        parse_fixture("python-2023.log", max_expanded_bytes=100)
    first_line_past = fixture_text("python-2023.log").encode()[:100].count(b"\n") + 1
    assert str(error.value) == (
        f"line {first_line_past}: the log is larger than 100 bytes: upload only this run's output"
    )


def test_it_stops_at_an_overlong_line_without_reading_it_whole():
    def endless():
        yield HEADER_2023.encode()
        while True:
            yield b"x" * 4096

    with pytest.raises(LogError) as error:
        parse_log(GeneratedLog(endless()))
    assert str(error.value) == (
        "line 2: longer than 65,536 characters: is this the benchmark's output?"
    )


def test_it_refuses_an_overlong_line_inside_a_block():
    text = HEADER_2023 + "1" * 70_000 + "\n"
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value).startswith("line 2: longer than 65,536 characters")


def test_it_refuses_utf16_text_with_a_byte_order_mark():
    data = fixture_text("python-2023.log").encode("utf-16")
    with pytest.raises(LogError) as error:
        parse_text(data)
    assert str(error.value).startswith(
        "line 1: not UTF-8 text: the file is UTF-16 (Windows calls it 'Unicode'); save it as UTF-8"
    )


def test_it_refuses_utf16_text_without_a_byte_order_mark():
    data = fixture_text("python-2023.log").encode("utf-16-le")
    with pytest.raises(LogError) as error:
        parse_text(data)
    assert "the file is UTF-16" in str(error.value)


def test_it_refuses_a_png_renamed_to_log():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64)
    with pytest.raises(LogError) as error:
        parse_text(png)
    assert str(error.value) == (
        "line 1: not text (a PNG image): upload the benchmark's text output"
    )


def test_it_refuses_a_nul_byte_naming_its_line():
    text = fixture_text("python-2023.log").replace("71500", "715\x0000")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value) == "line 3: not text (NUL byte): upload the benchmark's text output"


def test_it_refuses_bytes_that_are_not_utf8():
    data = fixture_text("python-2023.log").encode().replace(b"Done", b"Termin\xe9")
    with pytest.raises(LogError) as error:
        parse_text(data)
    assert str(error.value) == (
        "line 7: not UTF-8 text (byte 0xE9 at byte 7 of the line): "
        "save the log as UTF-8 and upload it again"
    )


def test_it_says_an_empty_upload_is_empty():
    with pytest.raises(LogError) as error:
        parse_text(b"")
    assert str(error.value) == "the log is empty"


def test_it_says_an_empty_gzip_is_empty():
    with pytest.raises(LogError) as error:
        parse_text(gzip.compress(b""))
    assert str(error.value) == "the log is empty"


def test_it_accepts_a_utf8_byte_order_mark():
    parsed = parse_text(b"\xef\xbb\xbf" + fixture_text("python-2023.log").encode())
    assert list(parsed.series.rows) == [714_000, 1_000_000]


def test_it_reads_old_mac_line_ends():
    parsed = parse_text(fixture_text("python-2023.log").replace("\n", "\r"))
    assert list(parsed.series.line) == [2, 3]
    assert parsed.totals.line == 6


def test_it_ignores_a_cut_off_last_line_and_says_so():
    parsed = parse_fixture("python-2023-cut-off.log")
    assert list(parsed.series.rows) == [714_000]
    assert parsed.cut_off_last_line is True
    assert parsed.line_count == 3


def test_it_keeps_a_complete_last_report_that_lacks_its_newline():
    text = fixture_text("python-2023.log").split("Insert rt:")[0].rstrip("\n")
    parsed = parse_text(text)
    assert list(parsed.series.rows) == [714_000, 1_000_000]
    assert parsed.cut_off_last_line is False


@pytest.mark.parametrize("block", [1, 7, 64, 4096])
@pytest.mark.parametrize(
    "name", ["python-2023-crlf.log", "python-2023.log.gz", "iibench-c-fifo-queries.log"]
)
def test_it_reads_the_same_whatever_the_block_boundaries(monkeypatch, block, name):
    expected = parse_fixture(name)
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", block)
    parsed = parse_fixture(name)
    assert list(parsed.series.rows) == list(expected.series.rows)
    assert list(parsed.series.line) == list(expected.series.line)
    assert parsed.line_count == expected.line_count
    assert parsed.totals == expected.totals


def test_the_fixture_gzip_is_a_real_gzip():
    assert zlib.decompress((FIXTURES / "python-2023.log.gz").read_bytes(), 31).startswith(b"i_sec")
