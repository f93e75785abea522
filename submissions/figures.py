"""The figures a run is ranked by, from its series. Pure: no Django.

No implementation prints a terminal rate, so it is computed here: the rate over the last
10,000,000 rows (the contest briefs' "terminal rate over the last 10M rows"), or the last 1%
of a run shorter than the contest's 1,000,000,000 rows so that a small run's terminal rate is
not its whole run.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from submissions.logparse.model import Series

TERMINAL_WINDOW_ROWS = 10_000_000
FULL_RUN_ROWS = 1_000_000_000


@dataclass(frozen=True)
class Figures:
    rows: int
    elapsed_seconds: float
    average_rate: float
    terminal_rate: float | None  # None when the window has no time (or no rows) in it
    terminal_window_rows: int  # the window actually used: whole report intervals
    terminal_window_start_row: int
    target_rows: int
    # Reached: when the run passed target_rows. Not reached: elapsed plus the rows still
    # missing at the terminal rate (None without a terminal rate).
    estimated_seconds_to_target: float | None
    estimated: bool


def default_window_rows(rows: int) -> int:
    if rows >= FULL_RUN_ROWS:
        return TERMINAL_WINDOW_ROWS
    return min(TERMINAL_WINDOW_ROWS, rows // 100)


def compute_figures(series: Series, *, target_rows: int, window_rows: int | None = None) -> Figures:
    if not len(series):
        raise ValueError("a series without reports has no figures")
    rows = int(series.rows[-1])
    elapsed = float(series.seconds[-1])
    window = default_window_rows(rows) if window_rows is None else window_rows
    start_rows, start_seconds = _window_start(series, rows - max(window, 1))
    window_rows_used = rows - start_rows
    window_seconds = elapsed - start_seconds
    terminal = (
        window_rows_used / window_seconds if window_seconds > 0 and window_rows_used > 0 else None
    )
    if rows >= target_rows:
        to_target, estimated = _time_at_rows(series, target_rows), False
    else:
        missing = target_rows - rows
        to_target = elapsed + missing / terminal if terminal else None
        estimated = True
    return Figures(
        rows=rows,
        elapsed_seconds=elapsed,
        average_rate=rows / elapsed if elapsed > 0 else 0.0,
        terminal_rate=terminal,
        terminal_window_rows=window_rows_used,
        terminal_window_start_row=start_rows,
        target_rows=target_rows,
        estimated_seconds_to_target=to_target,
        estimated=estimated,
    )


def _window_start(series: Series, from_rows: int) -> tuple[int, float]:
    """The last sample at or before `from_rows`, or the start of the run (0 rows at 0 s)."""
    at = bisect_right(series.rows, from_rows) - 1
    if at < 0:
        return 0, 0.0
    return int(series.rows[at]), float(series.seconds[at])


def _time_at_rows(series: Series, target_rows: int) -> float:
    """When the run reached `target_rows`, interpolated between the two reports around it."""
    at = bisect_left(series.rows, target_rows)
    after_rows, after_seconds = int(series.rows[at]), float(series.seconds[at])
    before_rows, before_seconds = (
        (int(series.rows[at - 1]), float(series.seconds[at - 1])) if at else (0, 0.0)
    )
    if after_rows <= before_rows:
        return after_seconds
    share = (target_rows - before_rows) / (after_rows - before_rows)
    return before_seconds + share * (after_seconds - before_seconds)


def format_duration(seconds: float, estimated: bool = False) -> str:
    """A duration for people, stable across versions: "15 s", "4.2 hours", "19.6 days"."""
    if seconds is None or not math.isfinite(seconds):
        text = "unknown"
    elif seconds < 9.95:
        text = f"{max(seconds, 0.0):.1f} s"
    elif seconds < 59.5:
        text = f"{seconds:.0f} s"
    elif seconds < 60 * 59.95:
        text = f"{seconds / 60:.1f} min"
    elif seconds < 3600 * 47.95:
        text = f"{seconds / 3600:.1f} hours"
    elif (days := seconds / 86400) < 99.95:
        text = f"{days:.1f} days"
    elif days < 730:
        text = f"{days:.0f} days"
    else:
        text = f"{days / 365.25:.1f} years"
    return f"{text} (est.)" if estimated else text
