"""The terminal rate, the one way every part of the registry measures it. Pure: no Django.

No iiBench implementation prints a terminal rate; the contest briefs quote "the terminal rate
over the last 10M rows" of a 1B-row run. So the window is measured in rows and its start is
interpolated between the two reports around it (rows and seconds), never snapped to a report:
a log that reports by time, or ends on a partial interval, cannot make a window out of one
short stub. A run shorter than the contest's is measured over the contest's window scaled to
its length (the last 1%), widened to at least MIN_WINDOW_REPORTS report intervals so that the
rate rests on several reports: a widened window is whole report intervals, at most as many as
the log has (issue 42: a 21,000-row stub times five, interpolated inside the interval before
it, invented a rate no report measured).

Figures (submissions/measures/figures.py) and verification reruns both call `terminal_window`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONTEST_WINDOW_ROWS = 10_000_000  # the briefs' "last 10M rows"
CONTEST_ROWS = 1_000_000_000  # ... of the 2008 contest's 1B rows
MIN_WINDOW_REPORTS = 5


@dataclass(frozen=True)
class TerminalWindow:
    start_row: float  # interpolated: may fall between two reports
    start_seconds: float
    end_row: int
    end_seconds: float
    basis: str  # how the size was chosen, in words a page can show

    @property
    def rows(self) -> float:
        return self.end_row - self.start_row

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds

    @property
    def rate(self) -> float | None:
        """Rows per second over the window; None when it holds no time or no rows."""
        if self.seconds > 0 and self.rows > 0:
            return self.rows / self.seconds
        return None


def seconds_at_rows(rows: Sequence, seconds: Sequence, at_row: float) -> float | None:
    """When the run had inserted `at_row` rows, interpolated between the report before and the
    first report at or past it (the run starts at 0 rows at 0 s). None past the last report."""
    rows_, seconds_ = np.asarray(rows), np.asarray(seconds, dtype=np.float64)
    if not len(rows_) or at_row > rows_[-1]:
        return None
    if at_row <= 0:
        return 0.0
    if rows_.dtype.kind in "iu":
        # Whole rows searched as they are (no float copy of a 2,000,000-report column): the
        # first report at or past `at_row` is the first at or past its ceiling.
        after = int(np.searchsorted(rows_, math.ceil(at_row), side="left"))
    else:
        rows_ = rows_.astype(np.float64, copy=False)
        after = int(np.searchsorted(rows_, at_row, side="left"))
    before_rows = np.float64(rows_[after - 1]) if after else 0.0
    before_seconds = seconds_[after - 1] if after else 0.0
    after_rows, after_seconds = np.float64(rows_[after]), seconds_[after]
    if after_rows <= before_rows:
        return float(after_seconds)
    share = (at_row - before_rows) / (after_rows - before_rows)
    return float(before_seconds + share * (after_seconds - before_seconds))


def typical_report_rows(rows: Sequence) -> float:
    """The median rows between two reports that added rows (a stall adds none). The rows
    before the first report count only when there is no other step: a log may begin late."""
    values = np.asarray(rows, dtype=np.float64)
    steps = np.diff(values) if len(values) > 1 else values.copy()
    adding = steps > 0
    if not adding.all():  # else no copy of the steps without the stalls: an upload's peak
        steps = steps[adding]
    # Sorted in place, being a copy already.
    return float(np.median(steps, overwrite_input=True)) if len(steps) else 0.0


def window_size(
    rows: Sequence, *, target_rows: int, window_rows: int | None = None
) -> tuple[float, str, bool]:
    """The window in rows for a run that reached `rows[-1]`, and the words that say why.

    The contest's window (`window_rows`, else the briefs' 10M of 1B rows) applies as is to a
    run that reached the target; a shorter run gets the same share of its own length, widened
    to MIN_WINDOW_REPORTS report intervals (the third value says it was widened: such a
    window is then laid on whole report intervals). Never past the start of the run.
    """
    done = float(rows[-1])
    if window_rows is None:
        window, full = CONTEST_WINDOW_ROWS, CONTEST_ROWS
    else:
        window, full = window_rows, max(target_rows, 1)
    if done >= full:
        # The contest's own window, as its rules state it.
        size, basis, widened = float(window), f"the last {window:,} rows", False
    else:
        share = window / full
        size = share * done
        basis = f"the last {_percent(share)} of the run ({size:,.0f} rows)"
        floor = MIN_WINDOW_REPORTS * typical_report_rows(rows)
        widened = size < floor
        if widened:
            size = floor
            basis += f", widened to {MIN_WINDOW_REPORTS} report intervals"
    if size >= done:
        return done, "the whole run", False
    return size, basis, widened


def _percent(share: float) -> str:
    percent = share * 100
    return f"{percent:g}%" if percent >= 0.01 else f"{percent:.2g}%"


def terminal_window(
    rows: Sequence, seconds: Sequence, *, target_rows: int, window_rows: int | None = None
) -> TerminalWindow:
    """The window the terminal rate is measured over, at the end of the series.

    `rows` (cumulative, not decreasing) and `seconds` (since the start) are one entry per
    report: arrays, lists or numpy arrays."""
    if not len(rows):
        raise ValueError("a series without reports has no terminal window")
    size, basis, widened = window_size(rows, target_rows=target_rows, window_rows=window_rows)
    end_row, end_seconds = int(rows[-1]), float(seconds[-1])
    if widened:
        return _last_intervals(rows, seconds, basis)
    start_row = max(end_row - size, 0.0)
    start_seconds = seconds_at_rows(rows, seconds, start_row)
    return TerminalWindow(start_row, start_seconds, end_row, end_seconds, basis)


def _last_intervals(rows: Sequence, seconds: Sequence, basis: str) -> TerminalWindow:
    """The last MIN_WINDOW_REPORTS report intervals, whole: a window widened to rest on several
    reports starts on a report, never inside an interval it would have to interpolate, and
    never spans more intervals than the log has (the first runs from 0 rows at 0 s). A run
    that ended just after a report has a short last interval: five times it, laid across the
    interval before, would price rows at a rate no report measured."""
    n = len(rows)
    start = n - 1 - MIN_WINDOW_REPORTS  # the report the window starts at; -1 is the start
    end_row, end_seconds = int(rows[-1]), float(seconds[-1])
    if start < 0:
        return TerminalWindow(0.0, 0.0, end_row, end_seconds, "the whole run")
    start_row = float(rows[start])
    basis = basis.split(", widened")[0]
    basis += f", widened to the last {MIN_WINDOW_REPORTS} report intervals ({end_row - start_row:,.0f} rows)"
    return TerminalWindow(start_row, float(seconds[start]), end_row, end_seconds, basis)
