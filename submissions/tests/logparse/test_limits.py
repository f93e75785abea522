"""The parser's limits on the work a log takes (issue 40): every line counted, a deadline, what
a log states beside its reports kept up to a bound, runs in one file bounded; each refusal a
LogTooLarge naming its limit and the first line past it. And a .gz of many members read once."""

from __future__ import annotations

import gzip
import io
import zlib

import pytest

from submissions.logparse import LogError, parse_log, parse_log_runs
from submissions.logparse.common import MAX_STATEMENT_CHARS, MAX_STATEMENTS
from submissions.logparse.errors import LogTooLarge
from submissions.logparse.parse import MAX_RUNS
from testing.bombs import PieceReader, bomb, real_log
from testing.logs import c_log

REAL_LINES = real_log().count(b"\n")


def read(data: bytes, **limits):
    return parse_log(io.BytesIO(data), **limits)


@pytest.mark.parametrize("kind", ["comment", "blank", "trailer"])
def test_every_line_counts_against_the_line_limit(kind):
    limit = REAL_LINES + 100
    assert read(b"".join(bomb(kind, "plain", 100)), max_lines=limit).line_count == limit
    with pytest.raises(LogTooLarge) as refused:
        parse_log(PieceReader(bomb(kind, "plain", 10_000_000)), max_lines=limit)
    assert refused.value.limit == "lines"
    assert refused.value.line == limit + 1
    assert str(refused.value).startswith(f"line {limit + 1:,}: the log has more than {limit:,}")


def test_a_gzip_of_many_members_is_counted_across_them():
    source = PieceReader(bomb("comment", "members", 10_000_000))
    with pytest.raises(LogTooLarge) as refused:
        parse_log(source, max_lines=50_000)
    assert refused.value.line == 50_001
    assert source.sent < 1 << 20


def test_members_that_expand_past_a_block_are_each_read_once():
    # zlib leaves the bytes after a member in unconsumed_tail as well as unused_data when the
    # read was cut by the block size: read twice, the next members' lines came again.
    text = real_log()
    header, rest = text[: text.index(b"\nrows\t") + 1], text[text.index(b"\nrows\t") + 1 :]
    filler = b"# a note the parser skips\n" * 100_000  # 2.6 MB: past a block
    members = b"".join(gzip.compress(part, 1) for part in (header, filler, filler, rest))
    parsed = read(members)
    assert parsed.line_count == REAL_LINES + 200_000
    assert len(parsed.series) == 5


def test_a_parse_past_its_deadline_is_refused_naming_the_line_it_reached():
    with pytest.raises(LogTooLarge) as refused:
        read(real_log(), max_seconds=0.0)
    assert refused.value.limit == "seconds"
    assert "was not read within 0 seconds" in str(refused.value)
    assert read(real_log(), max_seconds=60.0).line_count == REAL_LINES


def test_a_header_of_distinct_settings_is_refused_past_the_statements_kept():
    source = PieceReader(bomb("settings", "plain", 10_000_000))
    with pytest.raises(LogTooLarge) as refused:
        parse_log(source)
    assert refused.value.limit == "statements"
    assert f"more than {MAX_STATEMENTS:,} parameters, settings" in str(refused.value)
    # The real log's own ~700 settings and params are well within it.
    assert len(read(real_log()).settings) > 600


def test_a_file_of_more_runs_than_kept_is_refused():
    run = c_log(rows=2_000, every=1_000)
    assert len(parse_log_runs(io.BytesIO(run * 3))) == 3
    with pytest.raises(LogTooLarge) as refused:
        parse_log_runs(io.BytesIO(run * (MAX_RUNS + 5)))
    assert refused.value.limit == "statements"
    assert f"more than {MAX_RUNS}" in str(refused.value)


def test_a_limit_is_still_a_log_error_for_callers_that_know_only_those():
    deflate = zlib.compressobj(1, zlib.DEFLATED, 31)
    data = deflate.compress(b"#\n" * 100_000) + deflate.flush()
    with pytest.raises(LogError):
        read(data, max_lines=10)


def test_long_statements_are_refused_past_the_text_kept():
    # Few settings, each a line's worth of text: the count is no bound, their characters are.
    text = real_log()
    at = text.index(b"\nrows\t") + 1
    long_settings = b"".join(
        b"# setting long_%d changed %s\n" % (number, b"x" * 60_000) for number in range(200)
    )
    with pytest.raises(LogTooLarge) as refused:
        read(text[:at] + long_settings + text[at:])
    assert refused.value.limit == "statements"
    assert f"more than {MAX_STATEMENT_CHARS:,} characters" in str(refused.value)
    # The first setting past it is named: the real header's own text is far below the bound.
    assert REAL_LINES - 10 < refused.value.line < REAL_LINES + 80
