"""Crash recovery (seed 003, later posts): insert at a fixed rate, crash the server at about
250M rows, time the restart until the table answers. TokuDB recovered in 2 s at 200 rows/s,
13 s at 2,000 and 501 s at 16,000; stock InnoDB took 18,505 s at 200 rows/s (patched: 1,020 s).

The entrant declares the insert rate, the rows at the crash and the recovery time; a log of the
insert run is optional and, when attached, must agree with them. Entries rank by recovery time
within their class, since the seed shows recovery grows with the work in flight: a class is a
range, an order of magnitude, of the insert rate (the seed's 200, 2,000 and 16,000 rows/s fall
in three) and of the rows at the crash (a 10,000-row crash is not compared with the seed's
250,000,000 rows)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from submissions.contests.rules import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.model import ParsedLog
from submissions.measures.numbers import display, number

from ..base import LOG_OPTIONAL, SETUP, Ranking, Track, TrackColumn, TrackField
from .references import REFERENCES

# A rate in the log (stated --max-rate or measured average) agrees with the declared one
# within this share: the C benchmark holds --max-rate to a statement's worth of rows.
RATE_AGREEMENT = 0.10


def decade(value: float) -> int:
    """The power of ten at or below `value` (the lower end of its order of magnitude):
    198.7 -> 100, 2,000 -> 1,000, 250,000,000 -> 100,000,000; 0 for nothing."""
    if value < 1:
        return 0
    low = 10 ** math.floor(math.log10(value))
    # log10 rounds: 1,000 may come out as 2.9999...
    return low * 10 if low * 10 <= value else low


def crash_figures(log: ParsedLog | None, declared: Mapping, rules: RuleSet) -> dict:
    return {
        "insert_rate": float(declared["insert_rate"]),
        "rows_at_crash": int(declared["rows_at_crash"]),
        "recovery_seconds": float(declared["recovery_seconds"]),
        "engine": str(declared.get("storage_engine", "")),
    }


def class_key(figures: Mapping) -> str:
    """Fixed width, so classes sort by rate, then by rows at the crash."""
    rate = decade(float(figures["insert_rate"]))
    rows = decade(float(figures["rows_at_crash"]))
    return f"r{rate:012d}c{rows:015d}"


def class_label(key: str) -> str:
    rate_text, _, rows_text = key[1:].partition("c")
    rate, rows = int(rate_text), int(rows_text or 0)
    return f"{_range(rate)} rows/s, {_range(rows)} rows at the crash"


def _range(low: int) -> str:
    return f"under {1:,}" if low == 0 else f"{low:,} to {low * 10:,}"


# --- rules --------------------------------------------------------------------------------


def check_recovery_declared(entry: Entry, rules: RuleSet) -> RuleVerdict:
    figures = entry.track_figures
    rate, rows, seconds = (
        figures.get("insert_rate"),
        figures.get("rows_at_crash"),
        figures.get("recovery_seconds"),
    )
    problems = []
    if rate is None or not rate > 0:
        problems.append("the insert rate must be above 0 rows/s")
    if rows is None or not rows > 0:
        problems.append("the rows at the crash must be above 0")
    if seconds is None or not seconds >= 0 or not math.isfinite(seconds):
        problems.append("the recovery time cannot be negative")
    if problems:
        return RuleVerdict(
            "recovery_declared", Status.FAIL, "Declared figures: " + "; ".join(problems) + "."
        )
    return RuleVerdict(
        "recovery_declared",
        Status.PASS,
        f"Declared: {number(rate)} rows/s, crash at {number(rows)} rows, recovered in "
        f"{display(seconds, 'time')}.",
        value=display(seconds, "time"),
    )


def _log_rows(log: ParsedLog) -> tuple[int, int | None]:
    if log.totals is not None and log.totals.rows:
        return log.totals.rows, log.totals.line
    if len(log.series):
        return int(log.series.rows[-1]), int(log.series.line[-1])
    return 0, None


def check_log_agrees(entry: Entry, rules: RuleSet) -> RuleVerdict:
    log, figures = entry.log, entry.track_figures
    if log is None:
        return RuleVerdict(
            "log_agrees",
            Status.UNVERIFIED,
            "Unverified: declared by entrant. No log of the insert run is attached.",
        )
    rows, line = _log_rows(log)
    declared_rows = int(figures["rows_at_crash"])
    # The crash loses what was not committed: the log may stop a report short of it.
    slack = max(rules.report_every_rows, int(0.01 * declared_rows))
    if abs(rows - declared_rows) > slack:
        return RuleVerdict(
            "log_agrees",
            Status.FAIL,
            f"The log's run stops at {number(rows)} rows; the entry declares the crash at "
            f"{number(declared_rows)}.",
            line,
            number(rows),
            number(declared_rows),
        )
    stated = log.parameters.get("max_rate")
    declared_rate = float(figures["insert_rate"])
    if stated is not None and int(stated.value) > 0:
        rate, what, line = float(stated.value), "states --max-rate", stated.line
    elif log.totals is not None and log.totals.rate:
        rate, what, line = log.totals.rate, "averages", log.totals.line
    else:
        rate, what = rows / float(log.series.seconds[-1]) if len(log.series) else 0.0, "averages"
    if abs(rate - declared_rate) > RATE_AGREEMENT * declared_rate:
        return RuleVerdict(
            "log_agrees",
            Status.FAIL,
            f"The log {what} {number(rate)} rows/s; the entry declares {number(declared_rate)}.",
            line,
            number(rate),
            number(declared_rate),
        )
    return RuleVerdict(
        "log_agrees",
        Status.PASS,
        f"The log {what} {number(rate)} rows/s and stops at {number(rows)} rows, as declared.",
        line,
        number(rate),
    )


CRASH_RECOVERY = Track(
    workload="crash_recovery",
    label="Crash recovery",
    log=LOG_OPTIONAL,
    figures=crash_figures,
    classic_rules=SETUP,
    rules=(
        Rule(
            "recovery_declared",
            "The entry declares its insert rate, rows at the crash and recovery time.",
            check_recovery_declared,
        ),
        Rule(
            "log_agrees",
            "An attached log of the insert run agrees with the declared rate and rows.",
            check_log_agrees,
        ),
    ),
    fields=(
        TrackField(
            "insert_rate",
            "Insert rate (rows/s)",
            "float",
            "The rate the run inserted at when the server was killed (e.g. --max-rate 200).",
        ),
        TrackField(
            "rows_at_crash", "Rows at the crash", "int", "Rows in the table when it was killed."
        ),
        TrackField(
            "recovery_seconds",
            "Recovery time (s)",
            "float",
            "From the restart until the server accepts connections and the table answers.",
        ),
    ),
    ranking=Ranking(
        "recovery time",
        descending=False,
        metric=lambda figures: figures["recovery_seconds"],
        class_key=class_key,
        class_label=class_label,
    ),
    columns=(
        TrackColumn("Recovery", lambda f: f["recovery_seconds"], "time", metric=True),
        TrackColumn("Insert rate", lambda f: f["insert_rate"], "rate"),
        TrackColumn("Rows at crash", lambda f: f["rows_at_crash"], "rows"),
    ),
    tiles=(
        TrackColumn("Recovery time", lambda f: f["recovery_seconds"], "time"),
        TrackColumn("Insert rate (rows/s)", lambda f: f["insert_rate"], "rate"),
        TrackColumn("Rows at the crash", lambda f: f["rows_at_crash"], "rows"),
    ),
    plot="recovery_bars",
    plot_title="Recovery time beside the seed's",
    plot_help=(
        "Seconds from the restart until the table answers (log scale), this entry and the "
        "seed's published recoveries with their insert rates."
    ),
    plot_references="all",
    ranked_by="Ranked by recovery time within each insert-rate class, fastest first.",
    unranked_reason="No recovery time declared.",
    references=REFERENCES,
    # The contest `make run`'s demo data opens for this track (submissions/entries/demo.py).
    demo_contest={
        "slug": "crash-recovery",
        "title": "Crash recovery: restart time after a crash",
        "description": (
            "Seed 003's recovery posts: insert at a fixed rate, kill the server, time the "
            "restart until the table answers. Entries declare their figures; a log of the "
            "insert run is optional and must agree with them. Ranked by recovery time within "
            "each insert-rate class."
        ),
        "report_every_rows": 10_000,
    },
)
