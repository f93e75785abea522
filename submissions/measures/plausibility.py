"""Figures no server can produce, found in a parsed series before anything is stored. Pure: no
Django import.

Two tests, each naming the first line that fails:
- a rate over MAX_ROWS_PER_SECOND (100 million rows/s, far beyond any database on any machine
  to date, and far below the 1e300 a forged log can print);
- a cumulative rate that disagrees with the line's own rows and seconds. Logs print seconds
  rounded (to the second at worst), so the rate is only held to rows / (seconds +- 1 s), with
  10% slack, and only from CHECK_FROM_SECONDS on, where that rounding is small."""

from __future__ import annotations

import math

import numpy as np

from submissions.logparse.columns import held, pieces, wide_piece
from submissions.logparse.model import Series

MAX_ROWS_PER_SECOND = 100_000_000
CHECK_FROM_SECONDS = 10.0
SLACK = 0.10


def implausible(series: Series) -> str | None:
    """The first impossible figure as 'line N: ...', or None."""
    first = _first_suspect(series)
    if first is None:
        return None
    line = series.line[first]
    for name, rate in (
        ("interval", series.interval_rate[first]),
        ("cumulative", series.cumulative_rate[first]),
    ):
        if math.isfinite(rate) and rate > MAX_ROWS_PER_SECOND:
            return (
                f"line {line:,}: an {name} rate of {rate:,.0f} rows/s is beyond any "
                f"server (the registry takes at most {MAX_ROWS_PER_SECOND:,} rows/s)."
            )
    problem = _disagreement(
        series.rows[first], series.seconds[first], series.cumulative_rate[first]
    )
    return f"line {line:,}: {problem}"


def _first_suspect(series: Series) -> int | None:
    """The first index the rate ceiling or _disagreement rejects, found a block of reports at
    a time: a loop over a 2,000,000-report series took seconds of the upload, and whole-array
    temporaries would take tens of MB of it."""
    rows = np.frombuffer(series.rows, dtype=np.int64)
    seconds = np.frombuffer(series.seconds, dtype=np.float64)
    interval, cumulative = held(series.interval_rate), held(series.cumulative_rate)
    for block in pieces(len(rows)):
        suspects = np.flatnonzero(
            _suspects(
                rows[block],
                seconds[block],
                wide_piece(interval[block]),
                wide_piece(cumulative[block]),
            )
        )
        if len(suspects):
            return block.start + int(suspects[0])
    return None


def _suspects(
    rows: np.ndarray, seconds: np.ndarray, interval: np.ndarray, cumulative: np.ndarray
) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        too_fast = (np.isfinite(interval) & (interval > MAX_ROWS_PER_SECOND)) | (
            np.isfinite(cumulative) & (cumulative > MAX_ROWS_PER_SECOND)
        )
        checked = np.isfinite(seconds) & np.isfinite(cumulative) & (seconds >= CHECK_FROM_SECONDS)
        highest = rows / (seconds - 1) * (1 + SLACK)
        lowest = rows / (seconds + 1) * (1 - SLACK)
        return too_fast | (checked & ~((lowest <= cumulative) & (cumulative <= highest)))


def _disagreement(rows: int, seconds: float, rate: float) -> str | None:
    if not (math.isfinite(seconds) and math.isfinite(rate)) or seconds < CHECK_FROM_SECONDS:
        return None
    highest = rows / (seconds - 1) * (1 + SLACK)
    lowest = rows / (seconds + 1) * (1 - SLACK)
    if lowest <= rate <= highest:
        return None
    return (
        f"the cumulative rate {rate:,.1f} rows/s disagrees with the line's own {rows:,} rows "
        f"in {seconds:,.1f} s ({rows / seconds:,.1f} rows/s)."
    )
