"""Query scalability (seed 001): how long a query takes as the table grows. At 125M rows TokuDB
ran the query in 7.2 s and MyISAM in 17.7 s; at 132M MyISAM jumped to 406 s.

Points come from the log's query columns (seconds per query = 1 / the queries per second over
each report interval) or from a series the entrant declares ("rows, seconds" per line).

Ranked by the query time at one table size the contest states (125M rows by default, where the
seed compares), interpolated between the two points around it. Not "the largest size every
entry reached": that size would move with each new entry, and one small run would drag every
comparison down to its size."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from submissions.contests.rules import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.columns import floats
from submissions.logparse.model import ParsedLog
from submissions.measures.numbers import display, number

from ..base import ALL_CLASSIC, LOG_SERIES, Ranking, Track, TrackColumn, TrackField, TrackParameter
from .references import REFERENCES

ROWS = re.compile(r"^(\d+(?:\.\d+)?)\s*(k|m|mm|b)?(?:\s*rows)?$")
SECONDS = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds)?$")
SUFFIXES = {"": 1, "k": 1_000, "m": 1_000_000, "mm": 1_000_000, "b": 1_000_000_000}


class SeriesError(ValueError):
    """A declared series that cannot be read; the message names the line."""


def _split_point(line: str) -> list[str]:
    """A point's two parts. A comma followed by a space, a tab, a semicolon or spaces
    separate them; a comma between digits groups them ("125,000,000, 7.2")."""
    for separator in ("\t", ";", ", "):
        if separator in line:
            return [part.strip() for part in line.rsplit(separator, 1)]
    words = line.split()
    if len(words) > 1:
        # "125M 7.2 s", "125000000 rows 7.2": the first number and its words, then the time.
        at = next((i for i, w in enumerate(words[1:], 1) if w[:1].isdigit()), len(words))
        return [" ".join(words[:at]), " ".join(words[at:])]
    return line.rsplit(",", 1) if line.count(",") == 1 else [line]


def _point(line: str) -> tuple[float, float] | None:
    parts = _split_point(line.lower())
    if len(parts) != 2:
        return None
    rows = ROWS.match(parts[0].replace(",", "").replace("_", ""))
    seconds = SECONDS.match(parts[1])
    if not rows or not seconds:
        return None
    return float(rows[1]) * SUFFIXES[rows[2] or ""], float(seconds[1])


def parse_declared_series(text: str) -> list[list[float]]:
    """Points from "rows, seconds" lines: `125000000, 7.2`, `125M 7.2 s`. Blank lines and
    lines starting with # are skipped; rows must grow from line to line."""
    points: list[list[float]] = []
    for at, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        point = _point(line)
        if point is None:
            raise SeriesError(
                f"line {at}: expected 'rows, seconds' (e.g. '125000000, 7.2'), found '{line[:60]}'"
            )
        rows, seconds = point
        if points and rows <= points[-1][0]:
            raise SeriesError(
                f"line {at}: rows must grow from line to line ({number(rows)} after "
                f"{number(points[-1][0])})"
            )
        points.append([int(rows), seconds])
    if not points:
        raise SeriesError("no point: write one 'rows, seconds' pair per line")
    return points


def log_points(log: ParsedLog) -> list[list[float]]:
    """(rows, seconds per query) at each report whose interval ran queries."""
    series = log.series
    if series.interval_query_rate is None:
        return []
    rows = np.frombuffer(series.rows, dtype=np.int64)
    rates = floats(series.interval_query_rate)
    ran = np.flatnonzero(rates > 0)
    return [[int(rows[i]), 1.0 / float(rates[i])] for i in ran]


def seconds_at(points: list[list[float]], at_rows: float) -> float | None:
    """The query time at `at_rows`, interpolated between the points around it; None when the
    points do not reach that size or start after it."""
    if not points or points[0][0] > at_rows or points[-1][0] < at_rows:
        return None
    rows = [point[0] for point in points]
    seconds = [point[1] for point in points]
    return float(np.interp(at_rows, rows, seconds))


def query_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    text = declared.get("query_series") or ""
    if text.strip():
        points, source = parse_declared_series(text), "declared"
    else:
        points, source = (log_points(log) if log is not None else []), "log"
    return at_contest_size({"points": points, "source": source}, rules)


def at_contest_size(figures: Mapping, rules: RuleSet) -> dict:
    """The figures with the query time at the contest's table size."""
    points = figures["points"]
    at_rows = int(rules.track["query_at_rows"])
    return {
        **figures,
        "at_rows": at_rows,
        "query_seconds": seconds_at(points, at_rows),
        "max_rows": points[-1][0] if points else None,
    }


# --- rules --------------------------------------------------------------------------------


def check_query_samples(entry: Entry, rules: RuleSet) -> RuleVerdict:
    figures = entry.track_figures
    points = figures.get("points") or []
    if not points:
        return RuleVerdict(
            "query_samples",
            Status.FAIL,
            "The log has no query samples (its query columns are empty or absent) and no "
            "series was declared: run with query threads, or declare 'rows, seconds' points.",
            value="0",
        )
    if figures.get("source") == "declared":
        reached = entry.figures.rows if entry.figures else 0
        if points[-1][0] > reached:
            return RuleVerdict(
                "query_samples",
                Status.WARN,
                f"A declared series of {len(points):,} points, up to {number(points[-1][0])} "
                f"rows; the log's run reached {number(reached)} rows (a note, not a failure).",
                value=number(points[-1][0]),
                limit=number(reached),
            )
        return RuleVerdict(
            "query_samples",
            Status.PASS,
            f"A declared series of {len(points):,} points, up to {number(points[-1][0])} rows.",
            value=str(len(points)),
        )
    series = entry.log.series
    rates = floats(series.interval_query_rate)
    first = int(np.flatnonzero(rates > 0)[0])
    return RuleVerdict(
        "query_samples",
        Status.PASS,
        f"The log has query samples in {len(points):,} report intervals, up to "
        f"{number(points[-1][0])} rows.",
        int(series.line[first]),
        str(len(points)),
    )


def check_query_at_size(entry: Entry, rules: RuleSet) -> RuleVerdict:
    figures, at_rows = entry.track_figures, int(rules.track["query_at_rows"])
    points = figures.get("points") or []
    seconds = figures.get("query_seconds")
    if seconds is not None:
        return RuleVerdict(
            "query_at_size",
            Status.PASS,
            f"Query time at {number(at_rows)} rows: {display(seconds, 'time')}.",
            value=display(seconds, "time"),
            limit=number(at_rows),
        )
    if not points:
        message = "No query time to read at any size."
    elif points[0][0] > at_rows:
        message = f"The query times start at {number(points[0][0])} rows, after {number(at_rows)}."
    else:
        message = (
            f"The query times stop at {number(points[-1][0])} rows, short of the "
            f"{number(at_rows)} rows this contest compares at."
        )
    return RuleVerdict(
        "query_at_size",
        Status.FAIL,
        message,
        value=number(points[-1][0]) if points else "0",
        limit=number(at_rows),
    )


QUERY = Track(
    workload="query",
    label="Query scalability",
    log=LOG_SERIES,
    figures=query_figures,
    # The table's size is what the plot shows: the 1B-row target does not apply.
    classic_rules=tuple(rule for rule in ALL_CLASSIC if rule != "target_rows"),
    rules=(
        Rule(
            "query_samples",
            "The log has query samples, or the entry declares a series of query times.",
            check_query_samples,
        ),
        Rule(
            "query_at_size",
            "Query times reach a table of {query_at_rows} rows.",
            check_query_at_size,
        ),
    ),
    fields=(
        TrackField(
            "query_series",
            "Query times (optional)",
            "series",
            "One 'rows, seconds' point per line (e.g. '125000000, 7.2' or '125M 7.2 s'), the "
            "query's time as the table grew. Empty: read from the log's query columns.",
            required=False,
        ),
    ),
    parameters=(
        TrackParameter(
            "query_at_rows",
            "Compare query times at (rows)",
            125_000_000,
            "The table size where entries are ranked by their query time (seed 001: 125M).",
        ),
    ),
    ranking=Ranking(
        "query time", descending=False, metric=lambda figures: figures["query_seconds"]
    ),
    columns=(
        TrackColumn(
            "Query at {query_at_rows} rows", lambda f: f["query_seconds"], "time", metric=True
        ),
        TrackColumn("Largest table", lambda f: f["max_rows"], "rows"),
        TrackColumn("Points", lambda f: f"{len(f['points'])} ({f['source']})", "text"),
    ),
    tiles=(
        TrackColumn("Query time at {query_at_rows} rows", lambda f: f["query_seconds"], "time"),
        TrackColumn("Largest table", lambda f: f["max_rows"], "rows"),
        TrackColumn("Points", lambda f: len(f["points"]), "rows"),
        TrackColumn("Source", lambda f: f["source"], "text"),
    ),
    plot="query_times",
    plot_title="Query time as the table grows",
    plot_help=(
        "Seconds per query against rows in the table; the seeds' published query times are "
        "drawn for comparison."
    ),
    plot_references="all",
    refigure=at_contest_size,
    ranked_by="Ranked by the query time at the contest's table size, fastest first.",
    unranked_reason="No query time at the contest's table size.",
    references=REFERENCES,
    # The contest `make run`'s demo data opens for this track (submissions/entries/demo.py).
    demo_contest={
        "slug": "query-scalability",
        "title": "Query scalability: query time as the table grows",
        "description": (
            "Seed 001's customer lab test: how long a query takes as the table grows. Entries "
            "rank by their query time at 1,000,000 rows, read from the log's query columns or "
            "declared; the seed compared at 125M rows."
        ),
        "target_rows": 1_000_000,
        "report_every_rows": 50_000,
        "track_rules": {"query_at_rows": 1_000_000},
    },
)
