from __future__ import annotations

from array import array

import pytest

from submissions.figures import Figures, compute_figures, format_duration
from submissions.logparse import Series


def series_of(points: list[tuple[int, float]]) -> Series:
    rows = array("q", [r for r, _ in points])
    seconds = array("d", [s for _, s in points])
    return Series(
        rows=rows,
        seconds=seconds,
        interval_rate=array("d", [0.0] * len(points)),
        cumulative_rate=array("d", [0.0] * len(points)),
        line=array("q", range(2, len(points) + 2)),
    )


def test_it_gives_the_rows_elapsed_time_and_average_rate():
    figures = compute_figures(
        series_of([(1_000_000, 10.0), (2_000_000, 40.0)]), target_rows=2_000_000
    )
    assert figures.rows == 2_000_000
    assert figures.elapsed_seconds == 40.0
    assert figures.average_rate == 50_000.0


def test_a_short_run_reported_every_million_rows_uses_its_last_interval():
    # 2M rows: the window is 1% (20,000 rows), widened to the last whole report interval.
    figures = compute_figures(
        series_of([(1_000_000, 10.0), (2_000_000, 40.0)]), target_rows=2_000_000
    )
    assert figures.terminal_window_rows == 1_000_000
    assert figures.terminal_window_start_row == 1_000_000
    assert figures.terminal_rate == pytest.approx(1_000_000 / 30.0)


def test_a_full_run_uses_the_last_ten_million_rows():
    points = [(i * 1_000_000, i * 1000.0) for i in range(1, 1001)]
    figures = compute_figures(series_of(points), target_rows=1_000_000_000)
    assert figures.terminal_window_rows == 10_000_000
    assert figures.terminal_window_start_row == 990_000_000
    assert figures.terminal_rate == pytest.approx(1000.0)


def test_a_window_that_does_not_fall_on_a_report_starts_at_the_report_before_it():
    points = [(0 + i * 3_000_000, i * 100.0) for i in range(1, 5)]  # 3M .. 12M
    figures = compute_figures(series_of(points), target_rows=1_000_000_000, window_rows=5_000_000)
    assert figures.terminal_window_start_row == 6_000_000
    assert figures.terminal_window_rows == 6_000_000


def test_a_window_larger_than_the_run_starts_at_the_start():
    figures = compute_figures(
        series_of([(500_000, 10.0)]), target_rows=1_000_000, window_rows=10**9
    )
    assert figures.terminal_window_start_row == 0
    assert figures.terminal_window_rows == 500_000
    assert figures.terminal_rate == 50_000.0


def test_it_estimates_the_time_to_target_of_a_run_that_stopped_short():
    # The seed's MyISAM run: 121 days estimated at the current rate.
    figures = compute_figures(
        series_of([(400_000_000, 40 * 86400.0), (410_000_000, 40 * 86400.0 + 10_000_000 / 93)]),
        target_rows=1_000_000_000,
    )
    assert figures.estimated is True
    assert figures.terminal_rate == pytest.approx(93.0)
    expected = figures.elapsed_seconds + 590_000_000 / 93.0
    assert figures.estimated_seconds_to_target == pytest.approx(expected)


def test_it_interpolates_when_the_target_falls_between_two_reports():
    figures = compute_figures(series_of([(800_000, 8.0), (1_200_000, 16.0)]), target_rows=1_000_000)
    assert figures.estimated is False
    assert figures.estimated_seconds_to_target == pytest.approx(12.0)


def test_a_run_that_reached_its_target_reports_when_it_did():
    figures = compute_figures(series_of([(1_000_000, 14.0)]), target_rows=1_000_000)
    assert figures == Figures(
        rows=1_000_000,
        elapsed_seconds=14.0,
        average_rate=1_000_000 / 14.0,
        terminal_rate=1_000_000 / 14.0,
        terminal_window_rows=1_000_000,
        terminal_window_start_row=0,
        target_rows=1_000_000,
        estimated_seconds_to_target=14.0,
        estimated=False,
    )


def test_a_stall_at_the_end_gives_no_terminal_rate_from_zero_rows():
    # The last report repeats the rows (a stall in a time-based log): the window still
    # reaches back to the report before.
    figures = compute_figures(
        series_of([(1_000_000, 10.0), (1_500_000, 20.0), (1_500_000, 30.0)]),
        target_rows=2_000_000,
    )
    assert figures.terminal_window_start_row == 1_000_000
    assert figures.terminal_rate == pytest.approx(500_000 / 20.0)


def test_it_refuses_an_empty_series():
    with pytest.raises(ValueError):
        compute_figures(series_of([]), target_rows=1)


@pytest.mark.parametrize(
    ("seconds", "estimated", "text"),
    [
        (4.2, False, "4.2 s"),
        (15, False, "15 s"),
        (14.5 * 60, False, "14.5 min"),
        (4.2 * 3600, False, "4.2 hours"),
        (19.6 * 86400, False, "19.6 days"),
        (121 * 86400, True, "121 days (est.)"),
        (3 * 365.25 * 86400, True, "3.0 years (est.)"),
        (59.7, False, "1.0 min"),
        (float("inf"), True, "unknown (est.)"),
    ],
)
def test_it_formats_durations_for_people(seconds, estimated, text):
    assert format_duration(seconds, estimated) == text
