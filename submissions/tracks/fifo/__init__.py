"""Insert + delete, FIFO (seed 002): insert 250M rows, then delete 1,000 rows from the beginning
for every 1,000 inserted at the end, to 500M rows inserted. Ranked by the terminal insert rate
(the last 10M rows)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from submissions.contests.rules import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.model import ParsedLog, Series
from submissions.measures.figures import compute_figures
from submissions.measures.numbers import number

from ..base import ALL_CLASSIC, LOG_SERIES, Ranking, Track, TrackColumn, TrackParameter
from .references import REFERENCES


def deletes_start(series: Series) -> tuple[int, int] | None:
    """The index of the first report that counts deletes, and the rows of the report before it
    (0 at the start): deletes began somewhere between the two. None without deletes."""
    if series.deleted is None:
        return None
    deleted = np.frombuffer(series.deleted, dtype=np.int64)
    found = np.flatnonzero(deleted > 0)
    if not len(found):
        return None
    first = int(found[0])
    return first, int(series.rows[first - 1]) if first else 0


def deletes_start_row(series: Series) -> int | None:
    """Where deletes began: the table's size at the first report that counts deletes (rows
    inserted minus rows deleted), which is exact when they keep pace one for one, kept within
    the report interval where they began."""
    start = deletes_start(series)
    if start is None:
        return None
    index, before = start
    rows = int(series.rows[index])
    return min(max(rows - int(series.deleted[index]), before), rows)


def stated_delete_after(log: ParsedLog, rules: RuleSet) -> int:
    """The row count after which the run deletes: what the log states, else the contest's."""
    stated = log.parameters.get("delete_after")
    if stated is not None and int(stated.value) > 0:
        return int(stated.value)
    return int(rules.track["delete_after"])


def fifo_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    series = log.series
    figures = compute_figures(
        series, target_rows=rules.target_rows, window_rows=rules.terminal_window_rows, log=log
    )
    deleted = int(series.deleted[-1]) if series.deleted is not None else 0
    return {
        "delete_after": stated_delete_after(log, rules),
        "deletes_start_row": deletes_start_row(series),
        "terminal_insert_rate": figures.terminal_rate,
        "terminal_window_rows": figures.terminal_window_rows,
        "rows": figures.rows,
        "deleted": deleted,
    }


# --- rules --------------------------------------------------------------------------------


def check_delete_after(entry: Entry, rules: RuleSet) -> RuleVerdict:
    bound = int(rules.track["delete_after"])
    stated = entry.log.parameters.get("delete_after")
    if stated is None:
        return RuleVerdict(
            "delete_after",
            Status.UNVERIFIED,
            "Unverified: the log does not state after how many rows it deletes; the deletes "
            "themselves are checked below.",
            limit=number(bound),
        )
    value = int(stated.value)
    status = Status.PASS if value == bound else Status.FAIL
    return RuleVerdict(
        "delete_after",
        status,
        f"The log states deletes after {number(value)} rows; the rule is {number(bound)}.",
        stated.line,
        number(value),
        number(bound),
    )


def check_deletes_start(entry: Entry, rules: RuleSet) -> RuleVerdict:
    series, bound = entry.log.series, int(rules.track["delete_after"])
    start = deletes_start(series)
    if start is None:
        return RuleVerdict(
            "deletes_start",
            Status.FAIL,
            f"The log shows no deletes: a FIFO run deletes once {number(bound)} rows are in.",
            int(series.line[-1]) if len(series) else None,
            "0",
            number(bound),
        )
    index, before = start
    rows, line = int(series.rows[index]), int(series.line[index])
    between = f"between {number(before)} and {number(rows)} rows"
    if rows <= bound:
        message, status = (
            f"Deletes began {between}, before the stated {number(bound)}.",
            Status.FAIL,
        )
    elif before > bound:
        message = (
            f"Deletes began only {between}: more than one report after the stated "
            f"{number(bound)} rows."
        )
        status = Status.FAIL
    else:
        message = (
            f"Deletes began {between}: in the report interval where {number(bound)} rows were in."
        )
        status = Status.PASS
    return RuleVerdict("deletes_start", status, message, line, number(rows), number(bound))


def pace_tolerance_rows(rules: RuleSet) -> int:
    """How far the table may stray from its stated size: a fraction of it, and never less
    than one commit (a report may fall between a commit's insert and its delete)."""
    share = float(rules.track["pace_tolerance"]) * float(rules.track["delete_after"])
    return max(int(share), rules.rows_per_commit)


def check_deletes_keep_pace(entry: Entry, rules: RuleSet) -> RuleVerdict:
    series, bound = entry.log.series, int(rules.track["delete_after"])
    start = deletes_start(series)
    if start is None:
        return RuleVerdict(
            "deletes_keep_pace", Status.FAIL, "The log shows no deletes to keep pace with."
        )
    tolerance = pace_tolerance_rows(rules)
    rows = np.frombuffer(series.rows, dtype=np.int64)[start[0] :]
    deleted = np.frombuffer(series.deleted, dtype=np.int64)[start[0] :]
    table = rows - deleted
    off = np.flatnonzero(np.abs(table - bound) > tolerance)
    limit = f"{number(bound)} ± {number(tolerance)} rows"
    if len(off):
        i = int(off[0])
        size, line = int(table[i]), int(series.line[start[0] + i])
        more = "more" if size > bound else "fewer"
        return RuleVerdict(
            "deletes_keep_pace",
            Status.FAIL,
            f"At {number(int(rows[i]))} rows inserted, {number(int(deleted[i]))} were deleted: "
            f"the table holds {number(size)} rows, {number(abs(size - bound))} {more} than the "
            f"{number(bound)} it keeps (tolerance {number(tolerance)}).",
            line,
            number(size),
            limit,
        )
    return RuleVerdict(
        "deletes_keep_pace",
        Status.PASS,
        f"From the first delete to the last report ({len(table):,} reports), the table stays at "
        f"{limit}: one row deleted per row inserted.",
        int(series.line[-1]),
        number(int(table[-1])),
        limit,
    )


FIFO = Track(
    workload="fifo",
    label="Insert + delete (FIFO)",
    log=LOG_SERIES,
    figures=fifo_figures,
    # All the classic rules still apply: the target is the rows inserted (500M by default).
    classic_rules=ALL_CLASSIC,
    rules=(
        Rule(
            "delete_after",
            "The run deletes once {delete_after} rows are in.",
            check_delete_after,
        ),
        Rule(
            "deletes_start",
            "Deletes start at {delete_after} rows, within one report interval.",
            check_deletes_start,
        ),
        Rule(
            "deletes_keep_pace",
            "Deletes keep pace with inserts: the table stays at {delete_after} rows.",
            check_deletes_keep_pace,
        ),
    ),
    parameters=(
        TrackParameter(
            "delete_after",
            "Deletes start at (rows)",
            250_000_000,
            "Rows inserted before the run starts deleting as many rows as it inserts.",
        ),
        TrackParameter(
            "pace_tolerance",
            "Pace tolerance (share of the table)",
            0.01,
            "How far the table may stray from its size once deletes run, as a share of it "
            "(never less than one commit's rows).",
            integer=False,
        ),
    ),
    ranking=Ranking(
        "terminal insert rate",
        descending=True,
        metric=lambda figures: figures["terminal_insert_rate"],
    ),
    columns=(
        TrackColumn(
            "Terminal insert rate", lambda f: f["terminal_insert_rate"], "rate", metric=True
        ),
        TrackColumn("Deletes from", lambda f: f["deletes_start_row"], "rows"),
        TrackColumn("Rows inserted", lambda f: f["rows"], "rows"),
    ),
    tiles=(
        TrackColumn("Rows inserted", lambda f: f["rows"], "rows"),
        TrackColumn("Rows deleted", lambda f: f["deleted"], "rows"),
        TrackColumn("Deletes began at (rows)", lambda f: f["deletes_start_row"], "rows"),
        TrackColumn("Terminal insert rate (rows/s)", lambda f: f["terminal_insert_rate"], "rate"),
    ),
    plot="rate_curve",
    curve_note="The dashed line marks where deletes begin; the green curve is the delete rate.",
    ranked_by=(
        "Ranked by the terminal insert rate (rows/s over the terminal window), highest first."
    ),
    unranked_reason="No terminal insert rate could be measured.",
    contest_defaults={"target_rows": 500_000_000, "terminal_window_rows": 10_000_000},
    references=REFERENCES,
    # The contest `make run`'s demo data opens for this track (submissions/entries/demo.py).
    demo_contest={
        "slug": "fifo-deletes",
        "title": "Insert + delete (FIFO), at 1/1000 scale",
        "description": (
            "Seed 002's FIFO run at a thousandth of its size: insert 250,000 rows, then delete "
            "one row from the beginning for every row inserted at the end, to 500,000 rows "
            "inserted. Ranked by the terminal insert rate over the last 10,000 rows (the brief's "
            "last 10M of 500M)."
        ),
        "target_rows": 500_000,
        "report_every_rows": 5_000,
        "terminal_window_rows": 10_000,
        "track_rules": {"delete_after": 250_000, "pace_tolerance": 0.01},
    },
)
