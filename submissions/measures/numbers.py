"""How the registry writes numbers for people, in one place: evidence, pages, CSV, feeds and
rerun messages all read 1,000,000 rows, 5,787 rows/s and 0.35 s the same way. Pure."""

from __future__ import annotations

import math
from typing import Any

from submissions.measures.figures import format_exact_duration

NONE = "—"


def number(value: float) -> str:
    """Counts and limits as people read them: 1,000,000 and 2.5."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}"


def rate(value: float | None) -> str:
    """Rows per second: whole above 100, one decimal below (a recovery's 12.5 rows/s)."""
    if value is None or not math.isfinite(value):
        return NONE
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def query_time(seconds: float) -> str:
    """One query's time: milliseconds below a second."""
    return f"{seconds * 1000:,.2f} ms" if seconds < 1 else f"{seconds:,.1f} s"


def short_seconds(seconds: float) -> str:
    """A step's time in a rerun's summary: 3.25 s, 412 s."""
    return f"{seconds:,.2f} s" if seconds < 10 else f"{seconds:,.0f} s"


def display(value: Any, style: str) -> str:
    """A figure as the pages and the CSV write it; "—" when there is none."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return NONE
    if style == "rate":
        return rate(value)
    if style == "seconds":
        # The pages' one duration format (the board's "3d 8h 27m 24s").
        return format_exact_duration(value)
    if style == "time":
        # Three figures, whatever the size: a query's 0.5 ms on a small table and 406 s past
        # MyISAM's cliff, a recovery's 0.35 s and 18,505 s.
        if value < 1:
            return f"{value * 1000:.3g} ms"
        return f"{value:.3g} s" if value < 1000 else f"{value:,.0f} s"
    if style == "minutes":
        return f"{value:,.2f} min"
    if style == "ratio":
        return f"{value:.2f}\N{MULTIPLICATION SIGN}"
    if style == "rows":
        return f"{int(value):,}"
    if style == "mb":
        return f"{value:,.1f}"
    return str(value)
