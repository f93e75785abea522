"""Judging a long log allocates no whole-series copy: beside the parsed series, what the
checks, figures, fingerprint and plot preview of an upload hold at once is a few pieces of
reports, whatever the log's length (bench/upload_speed.py measures the whole upload's peak)."""

from __future__ import annotations

import tracemalloc
from dataclasses import replace

import pytest

from submissions.contests.rules import Entry, check_entry
from submissions.logparse import columns, parse_log
from submissions.measures.costs import cost_figures
from submissions.measures.figures import log_figures
from submissions.measures.plausibility import implausible
from submissions.measures.series import plot_preview, series_columns, series_fingerprint
from testing.judging import IN_TIME, RULES_2008, SUN_X4150
from testing.logs import HEADER_2023, GeneratedLog

REPORTS = 200_000
PIECE = 1 << 12


def busy_2023_lines(count: int):
    """A 2023-format log whose reports carry queries and, from half way, deletes: every
    column of the series is held, the rates as whole numbers (4 bytes each)."""
    yield HEADER_2023.encode()
    rows = deleted = queries = 0
    for i in range(1, count + 1):
        seconds = i * 10.0
        deleting = 700 if i > count // 2 else 0
        rows, deleted, queries = rows + 7000, deleted + deleting * 10, queries + 4000
        yield (
            f"10.0\t{seconds:.1f}\t700\t{rows / seconds:.0f}\t{deleting}\t"
            f"{deleted / seconds:.0f}\t400\t{queries / seconds:.0f}\t1200\t0\t0"
            f"\t{rows}\t{deleted}\t{queries}\t0\t0\t0\n"
        ).encode()


@pytest.fixture
def small_pieces(monkeypatch):
    # The checks' pieces made small beside the series, so that a whole column's copy stands
    # out from them.
    monkeypatch.setattr(columns, "PIECE", PIECE)


def test_judging_a_long_log_allocates_less_than_one_copy_of_a_column(small_pieces):
    parsed = parse_log(GeneratedLog(busy_2023_lines(REPORTS)))
    assert parsed.series.interval_rate.typecode == "f" and parsed.series.deleted is not None
    contest_rules = replace(RULES_2008, target_rows=REPORTS * 7000)
    tracemalloc.start()
    try:
        assert implausible(parsed.series) is None
        run_figures = log_figures(parsed, contest_rules)
        verdicts = check_entry(Entry(parsed, run_figures, SUN_X4150, IN_TIME), contest_rules)
        columns = series_columns(parsed.series)
        cost_figures(columns, window_start_row=REPORTS * 7000 // 2)
        series_fingerprint(columns)
        # The preview's points are Python numbers held by design: few of them here.
        preview = plot_preview(columns, points=200)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert {verdict.rule: verdict.status for verdict in verdicts}["interval_rate"] == "pass"
    assert preview["count"] == REPORTS
    # One float64 copy of one column would be 8 bytes a report.
    assert peak < 8 * REPORTS, f"{peak:,} bytes held at once beside the series"
