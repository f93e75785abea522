from __future__ import annotations

from array import array

import pytest

from submissions.logparse import Series
from submissions.measures.figures import Figures, compute_figures, format_exact_duration


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


def test_a_short_run_measures_several_report_intervals_not_one():
    # 1% of 2M rows is 20,000 rows, less than one report: widened to 5 intervals, the whole run.
    figures = compute_figures(
        series_of([(1_000_000, 10.0), (2_000_000, 40.0)]), target_rows=2_000_000
    )
    assert figures.terminal_window_rows == 2_000_000
    assert figures.terminal_window_start_row == 0
    assert figures.terminal_rate == pytest.approx(50_000.0)
    assert figures.terminal_window_basis == "the whole run"


def test_a_full_run_uses_the_last_ten_million_rows():
    points = [(i * 1_000_000, i * 1000.0) for i in range(1, 1001)]
    figures = compute_figures(series_of(points), target_rows=1_000_000_000)
    assert figures.terminal_window_rows == 10_000_000
    assert figures.terminal_window_start_row == 990_000_000
    assert figures.terminal_rate == pytest.approx(1000.0)
    assert figures.terminal_window_basis == "the last 10,000,000 rows"


def test_a_window_that_does_not_fall_on_a_report_starts_between_two_reports():
    # Reports every 3M rows at 100 s each; a 1B-row contest window of 5M rows in a full run.
    points = [(i * 3_000_000, i * 100.0) for i in range(1, 340)]  # 3M .. 1,017M
    figures = compute_figures(series_of(points), target_rows=1_000_000_000, window_rows=15_000_000)
    assert figures.terminal_window_rows == 15_000_000
    assert figures.terminal_window_start_row == 1_002_000_000
    assert figures.terminal_rate == pytest.approx(30_000.0)


def test_the_window_start_is_interpolated_in_rows_and_seconds():
    # 10 reports of 100,000 rows, the rate falling; the last 5 intervals are 500,000 rows.
    points = [(i * 100_000, float(i * i)) for i in range(1, 11)]
    figures = compute_figures(series_of(points), target_rows=1_000_000_000)
    assert figures.terminal_window_rows == 500_000
    assert figures.terminal_rate == pytest.approx(500_000 / (100.0 - 25.0))


def test_a_partial_last_second_does_not_make_the_terminal_rate():
    # The Python iibench's 1M-row log: ~58,000 rows a second, and a last report of 28,990 rows
    # printed as a whole second. The rate rests on several seconds, not on the stub.
    points = [(58_000 * i, float(i)) for i in range(1, 17)] + [(1_000_000, 17.0)]
    figures = compute_figures(series_of(points), target_rows=1_000_000_000)
    assert figures.terminal_window_rows > 5 * 28_990
    assert figures.terminal_rate > 50_000
    assert "widened to the last 5 report intervals" in figures.terminal_window_basis


def test_a_window_larger_than_the_run_starts_at_the_start():
    figures = compute_figures(
        series_of([(500_000, 10.0)]), target_rows=1_000_000, window_rows=10**9
    )
    assert figures.terminal_window_start_row == 0
    assert figures.terminal_window_rows == 500_000
    assert figures.terminal_rate == 50_000.0


def test_it_estimates_the_time_to_target_of_a_run_that_stopped_short():
    # The seed's MyISAM run: 121 days estimated at the current rate, reported every 1M rows.
    points = [(400_000_000 + i * 1_000_000, 40 * 86400.0 + i * 1_000_000 / 93) for i in range(11)]
    figures = compute_figures(series_of(points), target_rows=1_000_000_000)
    assert figures.estimated is True
    assert figures.terminal_rate == pytest.approx(93.0)
    expected = figures.elapsed_seconds + 590_000_000 / 93.0
    assert figures.estimated_seconds_to_target == pytest.approx(expected)
    assert figures.elapsed_seconds == pytest.approx(points[-1][1])
    assert "at the terminal rate of 93 rows/s" in figures.estimate_basis
    # Its time so far in the site's one duration format, as the board and entry page say it.
    elapsed = format_exact_duration(figures.elapsed_seconds)
    assert figures.estimate_basis.startswith(f"measured {elapsed} to 410,000,000 rows, then ")
    assert elapsed == "41d 5h 52m 07s"  # 40 days and 10,000,000 rows at 93 rows/s


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
        elapsed_source="line 2, seconds",
        terminal_window_basis="the whole run",
        estimate_basis="",
    )


def test_a_stall_at_the_end_counts_in_the_terminal_rate():
    # The last report repeats the rows (a stall in a time-based log): the window reaches back
    # over the reports before, and the stall's time is in it.
    figures = compute_figures(
        series_of([(500_000, 5.0), (1_000_000, 10.0), (1_500_000, 20.0), (1_500_000, 30.0)]),
        target_rows=2_000_000,
    )
    assert figures.terminal_window_start_row == 0
    assert figures.terminal_rate == pytest.approx(1_500_000 / 30.0)


def test_it_refuses_an_empty_series():
    with pytest.raises(ValueError):
        compute_figures(series_of([]), target_rows=1)


@pytest.mark.parametrize(
    ("seconds", "estimated", "text"),
    [
        (4.2, False, "4.2 s"),
        (59.94, False, "59.9 s"),
        (59.96, False, "1m 00s"),
        (14.5 * 60, False, "14m 30s"),
        (4.2 * 3600, False, "4h 12m 00s"),
        (19.6 * 86400, False, "19d 14h 24m 00s"),
        (121 * 86400, True, "121d 0h 00m 00s (est.)"),
        (float("inf"), True, "unknown (est.)"),
    ],
)
def test_it_says_every_duration_in_the_site_s_one_format(seconds, estimated, text):
    assert format_exact_duration(seconds, estimated) == text
