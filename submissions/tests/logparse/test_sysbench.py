"""sysbench-iibench, read from real sysbench 1.0.20 captures (see fixtures/logs/README.md)."""

from __future__ import annotations

import pytest

from submissions.logparse import LogError, Marker, Totals
from testing.logs import fixture_text, parse_fixture, parse_text


def test_it_derives_rows_from_writes_and_the_declared_rows_per_insert():
    parsed = parse_fixture("sysbench-iibench.log", declared={"rows_per_insert": 1000})
    assert parsed.format == "sysbench-iibench"
    series = parsed.series
    assert len(series) == 20
    # [ 1s ] w=32.93/s: 33 INSERTs of 1,000 rows.
    assert series.rows[0] == 33_000
    assert series.seconds[0] == 1.0
    assert series.interval_rate[0] == pytest.approx(32_930.0)
    assert series.cumulative_rate[0] == 33_000.0
    assert series.rows[-1] == 980_000
    assert series.line[0] == 13
    assert series.queries is None  # no query threads: zero reads


def test_it_says_where_rows_per_insert_came_from():
    parsed = parse_fixture("sysbench-iibench.log", declared={"rows_per_insert": 1000})
    assert parsed.markers == [
        Marker(
            "assumption",
            13,
            "rows per INSERT taken from the entrant's declaration: 1,000 "
            "(the sysbench log does not print it)",
        )
    ]


def test_it_assumes_the_scripts_default_when_nothing_is_declared():
    parsed = parse_fixture("sysbench-iibench.log")
    assert "assumed iibench.lua's default of 1,000" in parsed.markers[0].text
    assert parsed.series.rows[-1] == 980_000


def test_a_rows_per_commit_echoed_in_the_log_needs_no_assumption():
    text = "$ sysbench iibench --rows-per-commit=500 --threads=1 run\n" + fixture_text(
        "sysbench-iibench.log"
    )
    parsed = parse_text(text, declared={"rows_per_insert": 1000})
    assert parsed.markers == []
    assert parsed.parameters["rows_per_commit"].value == 500
    assert parsed.series.rows[0] == 33 * 500


def test_it_reads_the_sql_statistics_into_totals():
    parsed = parse_fixture("sysbench-iibench.log", declared={"rows_per_insert": 1000})
    assert parsed.totals == Totals(
        1_000_000, 20.655, pytest.approx(1_000_000 / 20.655), "completed", 33
    )
    assert parsed.parameters["benchmark_version"].value == "sysbench 1.0.20"
    assert parsed.parameters["report_every_seconds"].value == 1


def test_it_counts_reads_as_queries_and_not_as_rows():
    parsed = parse_fixture("sysbench-iibench-query-threads.log", declared={"rows_per_insert": 1000})
    series = parsed.series
    assert series.seconds[0] == 2.0
    assert series.rows[0] == 51_000  # 25.47 writes/s x 2 s
    assert series.queries[0] == 16_483  # 8,241.41 reads/s x 2 s
    assert series.interval_query_rate[0] == 8241.41
    assert parsed.totals.rows == 405_000  # 405 writes, as the table holds


def test_it_marks_a_run_that_died():
    parsed = parse_fixture("sysbench-iibench-fatal.log")
    assert len(parsed.series) == 0
    assert parsed.totals == Totals(None, None, None, "failed", 13)
    assert parsed.markers[0].kind == "failed"
    assert "attempt to call field 'varstring'" in parsed.markers[0].text


def test_it_rejects_time_that_goes_backwards():
    text = fixture_text("sysbench-iibench.log").replace("[ 3s ]", "[ 1s ]")
    with pytest.raises(LogError) as error:
        parse_text(text)
    assert str(error.value).startswith("line 15: time went down from 2 s to 1 s (line 14)")


def test_it_asks_for_report_lines_when_sysbench_printed_none():
    text = fixture_text("sysbench-iibench.log")
    without_reports = "\n".join(line for line in text.split("\n") if not line.startswith("["))
    with pytest.raises(LogError) as error:
        parse_text(without_reports)
    assert str(error.value) == (
        "the log has no report lines: run sysbench with --report-interval=10 "
        "so that it prints the insert rate every 10 s"
    )
