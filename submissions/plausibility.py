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

from submissions.logparse.model import Series

MAX_ROWS_PER_SECOND = 100_000_000
CHECK_FROM_SECONDS = 10.0
SLACK = 0.10


def implausible(series: Series) -> str | None:
    """The first impossible figure as 'line N: ...', or None."""
    for index in range(len(series)):
        line = series.line[index]
        for name, rate in (
            ("interval", series.interval_rate[index]),
            ("cumulative", series.cumulative_rate[index]),
        ):
            if math.isfinite(rate) and rate > MAX_ROWS_PER_SECOND:
                return (
                    f"line {line:,}: an {name} rate of {rate:,.0f} rows/s is beyond any "
                    f"server (the registry takes at most {MAX_ROWS_PER_SECOND:,} rows/s)."
                )
        problem = _disagreement(
            series.rows[index], series.seconds[index], series.cumulative_rate[index]
        )
        if problem:
            return f"line {line:,}: {problem}"
    return None


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
