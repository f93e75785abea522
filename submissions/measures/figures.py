"""The figures a run is ranked by, from its log. Pure: no Django.

Elapsed time is what the log measured: its own totals line when it prints one (a Python
iibench run that builds its indexes after the load reports its last rows before the index
build, and its totals include it), else its last report. Where a log prints its times rounded
to whole seconds beside a precise cumulative rate (the Java iibench's TSV `elap_secs` and
`cum_ips`), the time is read from the rate: seconds = rows / cum_ips. Java prints those
whole seconds truncated (`elapsed / 1000`): the true time lies in [t, t + 1), so a time read
from the rate is kept in that interval, and a time without a usable rate is read as t + 0.5.
Every figure says which line and column it came from.

The time to the contest's target is a separate figure: measured when the run passed the
target, else estimated from the terminal rate (`estimate_basis` says so). The terminal rate is
measured by submissions/measures/terminal.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from submissions.logparse.columns import held, pieces, wide_piece
from submissions.logparse.model import ParsedLog, Series
from submissions.measures.terminal import seconds_at_rows, terminal_window


@dataclass(frozen=True)
class Timeline:
    """Rows and seconds, one entry per report, with the words that say where the seconds
    were read (`source`, e.g. "t_sec" or "tot_inserts / cum_ips")."""

    rows: np.ndarray
    seconds: np.ndarray
    source: str


@dataclass(frozen=True)
class Figures:
    rows: int
    elapsed_seconds: float  # measured: never an extrapolation
    average_rate: float
    terminal_rate: float | None  # None when the window has no time (or no rows) in it
    terminal_window_rows: int  # rounded to a whole row; the start is interpolated
    terminal_window_start_row: int
    target_rows: int
    # Reached: when the run passed target_rows (measured). Not reached: elapsed plus the rows
    # still missing at the terminal rate (None without a terminal rate).
    estimated_seconds_to_target: float | None
    estimated: bool
    elapsed_source: str = ""  # "Totals line 23", "line 40, t_sec", ...
    terminal_window_basis: str = ""  # "the last 10,000,000 rows", ...
    estimate_basis: str = ""  # "", or what an estimate extrapolates

    @property
    def seconds_to_target(self) -> float | None:
        return self.estimated_seconds_to_target


def log_figures(log: ParsedLog | None, rules) -> Figures | None:
    """A parsed log's figures under a contest's rules (`rules.target_rows`,
    `rules.terminal_window_rows`): None without a log or without report lines."""
    if log is None or not len(log.series):
        return None
    return compute_figures(
        log.series,
        target_rows=rules.target_rows,
        window_rows=rules.terminal_window_rows,
        log=log,
    )


def compute_figures(
    series: Series,
    *,
    target_rows: int,
    window_rows: int | None = None,
    log: ParsedLog | None = None,
) -> Figures:
    """The figures of `series`; with `log`, its totals and its most precise times are used."""
    if not len(series):
        raise ValueError("a series without reports has no figures")
    timeline = log_timeline(log) if log is not None else series_timeline(series, "seconds")
    rows = int(timeline.rows[-1])
    last_line = int(series.line[-1])
    elapsed, source = float(timeline.seconds[-1]), f"line {last_line:,}, {timeline.source}"
    average = rows / elapsed if elapsed > 0 else 0.0
    if log is not None and any(m.kind == "unfinished" for m in log.markers):
        # Killed or hung before its summary: the figures stop where the log does, and say so.
        source += " (unfinished: the run did not reach its summary)"
    totals_seconds = _totals_seconds(log.totals, log.clock) if log is not None else None
    # The summary wins when it covers the reports, allowing for its own rounding: it then also
    # covers what came after the last report (an index build, the final commit).
    if totals_seconds is not None and totals_seconds >= elapsed * (1 - 1e-3) - 0.05:
        elapsed, source = totals_seconds, f"summary line {log.totals.line:,}"
        average = float(log.totals.rows) / elapsed
    window = terminal_window(
        timeline.rows, timeline.seconds, target_rows=target_rows, window_rows=window_rows
    )
    terminal, window_basis = window.rate, window.basis
    if window.start_row == 0 and log is not None and elapsed > window.end_seconds:
        # The whole run is the whole run: what came after the last report (an index build,
        # the final commit) is inside the summary's time, and so inside this rate.
        terminal = rows / elapsed if elapsed > 0 else None
        window_basis = _whole_run_basis(log, elapsed - window.end_seconds)
    elif log is not None and (built := _index_build(log)) is not None:
        window_basis += (
            f" (the insert phase only: the index build, line {built.line:,}, is not in it)"
        )
    basis = ""
    if rows >= target_rows:
        to_target, estimated = seconds_at_rows(timeline.rows, timeline.seconds, target_rows), False
        if rows == target_rows:
            to_target = elapsed  # the run ends at the target: its own total counts
    else:
        missing = target_rows - rows
        to_target = elapsed + missing / terminal if terminal else None
        estimated = True
        if terminal:
            basis = (
                f"measured {format_exact_duration(elapsed)} to {rows:,} rows, then {missing:,} rows "
                f"at the terminal rate of {terminal:,.0f} rows/s"
            )
        else:
            basis = "no terminal rate to extrapolate"
    return Figures(
        rows=rows,
        elapsed_seconds=elapsed,
        average_rate=average,
        terminal_rate=terminal,
        terminal_window_rows=round(window.rows),
        terminal_window_start_row=math.floor(window.start_row),
        target_rows=target_rows,
        estimated_seconds_to_target=to_target,
        estimated=estimated,
        elapsed_source=source,
        terminal_window_basis=window_basis,
        estimate_basis=basis,
    )


def _index_build(log: ParsedLog):
    return next((m for m in log.markers if m.kind == "indexes_created_after_load"), None)


def _whole_run_basis(log: ParsedLog, after: float) -> str:
    built = _index_build(log)
    if built is not None:
        return (
            f"the whole run, to its summary (line {log.totals.line:,}): its {after:,.1f} s after "
            f"the last report include the index build (line {built.line:,})"
        )
    return f"the whole run, to its summary (line {log.totals.line:,})"


def _totals_seconds(totals, clock: str = "rounded") -> float | None:
    """The seconds a summary line states, from its rows and rate when that is the more precise
    reading ("Totals: 36.0 secs, 27747.7 rows/sec, 1000000 rows" is 36.039 s). A truncated
    clock's t is any time in [t, t + 1): without a rate that falls there, t + 0.5."""
    if totals is None or totals.rows is None or totals.seconds is None:
        return None
    seconds = float(totals.seconds)
    truncated = clock == "truncated"
    if seconds <= 0 and not truncated:
        return None
    unit = printed_resolution(np.array([seconds]))
    early, late = (0.0, unit) if truncated else (unit / 2, unit / 2)
    if totals.rate and totals.rate > 0:
        from_rate = totals.rows / totals.rate
        if seconds - early - 1e-9 <= from_rate <= seconds + late + 1e-9:
            return from_rate
    if truncated:
        return seconds + unit / 2
    return seconds


def series_timeline(series: Series, source: str) -> Timeline:
    # The rows as they are, not a float copy (16 MB for 2,000,000 reports at the upload's
    # peak): what reads them (terminal.py, the rates below) computes in float64 all the same.
    rows = np.frombuffer(series.rows, dtype=np.int64)[: len(series)]
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]
    return Timeline(rows, seconds, source)


def log_timeline(log: ParsedLog) -> Timeline:
    """The log's rows and seconds. The seconds come from `rows / cumulative rate` when the log
    prints whole seconds beside a rate an order of magnitude more precise (Java's `elap_secs`
    beside `cum_ips` with two decimals): the log's own, more exact figure. Else from its time
    column."""
    series = log.series
    words = log.column_words
    timeline = series_timeline(series, words.get("seconds", "seconds"))
    if not len(series):
        return timeline
    # As held (float32 when narrowed): a float64 copy is made only for the seconds it gives.
    cumulative = held(series.cumulative_rate)[: len(series)]
    last_rate, last_seconds = float(cumulative[-1]), float(timeline.seconds[-1])
    truncated = log.clock == "truncated"
    if truncated and (last_rate <= 0 or last_seconds <= 0):
        return _truncated_midpoints(timeline)
    if last_rate <= 0 or last_seconds <= 0:
        return timeline
    # Only whole seconds: finer times read off the values can hide printed digits ("17.000").
    if printed_resolution(timeline.seconds) < 1:
        return timeline
    # A rounded time is off by half a second at most; a truncated one by up to a whole one.
    time_error = (1.0 if truncated else 0.5) / last_seconds
    rate_error = printed_resolution(cumulative) / 2 / last_rate
    if rate_error * 10 >= time_error:
        return _truncated_midpoints(timeline) if truncated else timeline
    cumulative = wide_piece(cumulative)
    usable = cumulative > 0
    printed = timeline.seconds + 0.5 if truncated else timeline.seconds
    precise = np.where(usable, timeline.rows / np.where(usable, cumulative, 1.0), printed)
    if truncated:
        # The rate's time lies in [t, t + 1) of the printed t; a rate rounded in an early
        # report cannot move it out.
        precise = np.clip(precise, timeline.seconds, timeline.seconds + 1.0)
    # Rounding in early reports must not make time run backwards.
    precise = np.maximum.accumulate(precise)
    if np.allclose(precise, timeline.seconds, rtol=0, atol=1e-9):
        return timeline  # a rate the parser derived from these same seconds
    source = f"{words.get('rows', 'rows')} / {words.get('cumulative_rate', 'cumulative rate')}"
    return Timeline(timeline.rows, precise, source)


def _truncated_midpoints(timeline: Timeline) -> Timeline:
    """Truncated whole seconds read as the middle of the second they stand for."""
    return Timeline(
        timeline.rows,
        timeline.seconds + 0.5,
        f"{timeline.source} + 0.5 (printed rounded down to the second)",
    )


def printed_resolution(values: np.ndarray) -> float:
    """The precision a log printed numbers with (1, 0.1, 0.01, 0.001), read off the values."""
    # A piece at a time: whole, a 2,000,000-report run's temporaries cost ~50 MB.
    for decimals in range(4):
        if all(
            np.all(np.abs(scaled - np.round(scaled)) < 1e-5)
            for scaled in (
                wide_piece(values[piece]) * 10**decimals for piece in pieces(len(values))
            )
        ):
            return 10.0**-decimals
    return 0.001


def format_exact_duration(seconds: float | None, estimated: bool = False) -> str:
    """The site's one duration format, on every page, export and stored sentence (an
    estimate's basis): to the second, for ranks that differ by minutes over days:
    "10d 7h 04m 12s", "4m 05s", "17.3 s" (tenths under a minute)."""
    if seconds is None or not math.isfinite(seconds):
        return "unknown (est.)" if estimated else "unknown"
    if seconds < 59.95:
        text = f"{max(seconds, 0.0):.1f} s"
    else:
        whole = round(seconds)
        days, rest = divmod(whole, 86400)
        hours, rest = divmod(rest, 3600)
        minutes, secs = divmod(rest, 60)
        if days:
            text = f"{days}d {hours}h {minutes:02d}m {secs:02d}s"
        elif hours:
            text = f"{hours}h {minutes:02d}m {secs:02d}s"
        else:
            text = f"{minutes}m {secs:02d}s"
    return f"{text} (est.)" if estimated else text
