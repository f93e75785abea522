"""The contest's ground rules as data: each rule is an id, a sentence a person reads and one
small function that returns a verdict with its evidence. No Django here: the web, the API and
the rerun worker all call `check_entry`.

Adding a rule is adding one `Rule(...)` entry to RULES.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from zoneinfo import ZoneInfo

import numpy as np

from submissions.contests.commands import python_command_batch, python_command_indexes

# What a rule judges and returns live one room lower (rule_types.py), so the machine's and the
# physics' rules, which use them too, are imported here at the top like any other module.
from submissions.contests.machine import MACHINE_RULES
from submissions.contests.physics import PHYSICS_RULES
from submissions.contests.rule_types import (
    MARIADB_CURRENT_SINCE,
    Entry,
    Rule,
    RuleSet,
    RuleVerdict,
    Status,
)

# Answered here too, as they always were: importers of rules.py read them from it.
from submissions.contests.rule_types import DeclaredSetup as DeclaredSetup
from submissions.contests.rule_types import verdicts_from_dicts as verdicts_from_dicts
from submissions.logparse.columns import held, pieces, wide_piece
from submissions.logparse.model import ParsedLog
from submissions.logparse.steps import median_step
from submissions.measures.figures import printed_resolution
from submissions.measures.numbers import number as _n
from submissions.setup.engines import MYSQL_NUMBERED, SERVER_FAMILIES

# --- the log's own parameters -------------------------------------------------------------


def check_target_rows(entry: Entry, rules: RuleSet) -> RuleVerdict:
    series = entry.log.series
    rows = entry.figures.rows
    line = int(series.line[-1]) if len(series) else None
    value, limit = _n(rows), _n(rules.target_rows)
    if rows >= rules.target_rows:
        return RuleVerdict(
            "target_rows", Status.PASS, f"The run reached {value} rows.", line, value, limit
        )
    return RuleVerdict(
        "target_rows",
        Status.FAIL,
        f"The run stopped at {value} rows of the {limit} required.",
        line,
        value,
        limit,
    )


def _stated_limit(*, rule_id: str, key: str, what: str, limit: str, exact: bool):
    def check(entry: Entry, rules: RuleSet) -> RuleVerdict:
        bound = getattr(rules, limit)
        stated = entry.log.parameters.get(key)
        batch = python_command_batch(entry.command) if stated is None else None
        if batch is not None:
            value = batch.rows
            ok = value == bound if exact else value <= bound
            return RuleVerdict(
                rule_id,
                Status.PASS if ok else Status.FAIL,
                f"The command the witness ran has `{batch.shown}`: the Python iibench sends "
                f"each commit as one INSERT of {_n(value)} rows; the rule is "
                f"{'' if exact else 'at most '}{_n(bound)} {what}.",
                value=_n(value),
                limit=_n(bound),
            )
        if stated is None:
            return RuleVerdict(
                rule_id,
                Status.UNVERIFIED,
                f"Unverified: declared by entrant. The log does not state its {what}.",
                limit=_n(bound),
            )
        value = int(stated.value)
        ok = value == bound if exact else value <= bound
        relation = "" if exact else "at most "
        status = Status.PASS if ok else Status.FAIL
        message = f"The log states {_n(value)} {what}; the rule is {relation}{_n(bound)}."
        return RuleVerdict(rule_id, status, message, stated.line, _n(value), _n(bound))

    return check


def _first_step(log: ParsedLog) -> int:
    """The first step to judge: an excerpt's first report follows rows this log never saw."""
    return 1 if any(marker.kind == "excerpt" for marker in log.markers) else 0


def _row_steps(rows: np.ndarray, start: int, stop: int) -> Iterator[tuple[int, np.ndarray]]:
    """(first index, steps) a piece at a time for the reports from `start` to `stop`: each
    report's rows since the one before (since 0 for the first)."""
    for piece in pieces(stop, start):
        steps = np.diff(rows[max(piece.start - 1, 0) : piece.stop])
        yield piece.start, (np.concatenate((rows[:1], steps)) if piece.start == 0 else steps)


def _first_step_where(
    rows: np.ndarray, start: int, stop: int, test: Callable[[np.ndarray], np.ndarray]
) -> int | None:
    """The index of the first report from `start` to `stop` whose step passes `test`."""
    for at, steps in _row_steps(rows, start, stop):
        hits = np.flatnonzero(test(steps))
        if len(hits):
            return at + int(hits[0])
    return None


def check_report_interval(entry: Entry, rules: RuleSet) -> RuleVerdict:
    log, every = entry.log, rules.report_every_rows
    rows = np.frombuffer(log.series.rows, dtype=np.int64)[: len(log.series)]
    if len(rows) == 0:
        return RuleVerdict(
            "report_interval", Status.FAIL, "The log has no report lines.", limit=_n(every)
        )
    offset = _first_step(log)
    if log.cadence == "time" and rules.report_every_seconds:
        return _time_cadence_verdict(log, rules, offset)
    if log.cadence == "time":
        # A log that reports every N seconds meets "a report every M rows" when no two of its
        # reports are more than M rows apart: it reports at least that often.
        i = _first_step_where(rows, offset, len(rows), lambda steps: steps > every)
        seconds = _stated_seconds(log)
        if i is not None:
            return RuleVerdict(
                "report_interval",
                Status.FAIL,
                f"The log reports every {seconds}; a report at least every {_n(every)} rows is "
                f"required, and this one comes {_n(int(rows[i] - (rows[i - 1] if i else 0)))} "
                "rows after the previous one.",
                int(log.series.line[i]),
                _n(int(rows[i] - (rows[i - 1] if i else 0))),
                _n(every),
            )
        most = max(
            (int(steps.max()) for _, steps in _row_steps(rows, offset, len(rows))), default=0
        )
        return RuleVerdict(
            "report_interval",
            Status.PASS,
            f"The log reports every {seconds}, at most {_n(most)} rows apart: at least every "
            f"{_n(every)} rows.",
            int(log.series.line[-1]),
            _n(most),
            _n(every),
        )
    # The rule asks for at most `every` rows between two reports: a log that reports more
    # often (every 100,000 rows) holds better data and meets it. The last report may close a
    # run that ends between two report points.
    i = _first_step_where(rows, offset, len(rows) - 1, lambda steps: steps > every)
    if i is not None:
        step = int(rows[i] - (rows[i - 1] if i else 0))
        return RuleVerdict(
            "report_interval",
            Status.FAIL,
            f"A report at least every {_n(every)} rows is required; this one comes "
            f"{_n(step)} rows after the previous one.",
            int(log.series.line[i]),
            _n(step),
            _n(every),
        )
    most = max(
        (int(steps.max()) for _, steps in _row_steps(rows, offset, max(len(rows) - 1, 1))),
        default=every,
    )
    if most == every:
        message = f"Every report comes {_n(every)} rows after the previous one."
    else:
        message = (
            f"The reports come at most {_n(most)} rows apart: at least every {_n(every)} rows."
        )
    return RuleVerdict(
        "report_interval",
        Status.PASS,
        message,
        int(log.series.line[-1]),
        _n(most),
        _n(every),
    )


def _time_cadence_allowance(seconds: int) -> float:
    # A client that sleeps N seconds then reads its counters reports a little late each time
    # (1.0-1.1 s at a 1 s cadence in the real logs); its last report may close a short second.
    return seconds + max(0.5, 0.2 * seconds)


def _time_cadence_verdict(log: ParsedLog, rules: RuleSet, offset: int) -> RuleVerdict:
    """A log that reports every N seconds, in a contest that accepts a time cadence: it meets
    the rule when no two reports (nor the start and the first) are further apart than that."""
    every = rules.report_every_seconds
    seconds = np.frombuffer(log.series.seconds, dtype=np.float64)[: len(log.series)]
    steps = np.diff(seconds, prepend=0.0)[offset:]
    allowed = _time_cadence_allowance(every)
    late = np.flatnonzero(steps > allowed)
    limit = f"{_n(every)} s"
    if len(late):
        i = offset + int(late[0])
        return RuleVerdict(
            "report_interval",
            Status.FAIL,
            f"The rule: {rules.cadence_rule}; this report comes {_n(round(float(steps[i - offset]), 1))} s "
            "after the previous one.",
            int(log.series.line[i]),
            f"{_n(round(float(steps[i - offset]), 1))} s",
            limit,
        )
    longest = float(steps.max()) if len(steps) else 0.0
    return RuleVerdict(
        "report_interval",
        Status.PASS,
        f"The log reports every {_stated_seconds(log)}, at most {_n(round(longest, 1))} s apart: "
        f"at least every {_n(every)} s, which this contest accepts.",
        int(log.series.line[-1]),
        f"{_n(round(longest, 1))} s",
        limit,
    )


def _stated_seconds(log: ParsedLog) -> str:
    """ "10 s" as the log states it, else the median step between its reports."""
    stated = log.parameters.get("report_every_seconds")
    if stated is not None:
        return f"{_n(float(stated.value))} s"
    seconds = np.frombuffer(log.series.seconds, dtype=np.float64)[: len(log.series)]
    if len(seconds) < 2:
        return "few seconds"
    return f"{_n(round(median_step(seconds), 1))} s"


def check_indexes_from_start(entry: Entry, rules: RuleSet) -> RuleVerdict:
    log = entry.log
    if not rules.indexes_from_start:
        return RuleVerdict(
            "indexes_from_start", Status.PASS, "This contest allows building indexes later."
        )
    after = [m for m in log.markers if m.kind == "indexes_created_after_load"]
    if after:
        return RuleVerdict(
            "indexes_from_start",
            Status.FAIL,
            f"The secondary indexes were built after the load ('{after[0].text.strip()[:120]}'): "
            "bulk load followed by ALTER TABLE is not allowed.",
            after[0].line,
            "after the load",
            "in place from the start",
        )
    late = [index for index in log.indexes if index.created == "after_load"]
    if late:
        return RuleVerdict(
            "indexes_from_start",
            Status.FAIL,
            f"Index {late[0].name} was created after the load.",
            late[0].line,
            "after the load",
            "in place from the start",
        )
    if log.indexes:
        secondary = [index.name for index in log.indexes if not index.primary]
        started = next((m for m in log.markers if m.kind == "load_started"), None)
        if started is not None:
            return RuleVerdict(
                "indexes_from_start",
                Status.PASS,
                f"The log creates {len(secondary)} secondary indexes ({', '.join(secondary)}) "
                f"from line {log.indexes[0].line:,}, before its writers start to load the table "
                f"(line {started.line:,}: '{started.text.strip()[:80]}').",
                log.indexes[0].line,
                "before the load",
                "in place from the start",
            )
        return RuleVerdict(
            "indexes_from_start",
            Status.PASS,
            f"The log lists {len(secondary)} secondary indexes ({', '.join(secondary)}) created "
            "before the first row.",
            log.indexes[0].line,
            "before the load",
            "in place from the start",
        )
    if log.format.startswith("python-iibench"):
        return _python_indexes(entry)
    if log.format == "java-iibench-tsv":
        return RuleVerdict(
            "indexes_from_start",
            Status.UNVERIFIED,
            "Unverified: declared by entrant. A Java TSV file holds its reports only; the "
            "console of the same run shows its indexes ('*** creating secondary index' lines "
            "before the load): upload that instead.",
        )
    return RuleVerdict(
        "indexes_from_start",
        Status.UNVERIFIED,
        "Unverified: declared by entrant. The log does not say when the indexes were created.",
    )


# The Python iibench formats printed by the client whose `--setup` makes only the primary key
# (the 2023 header appeared 2023-05-18, --secondary_at_start on 2023-08-08: docs/IIBENCH.md).
PYTHON_FORMATS_SINCE_2023 = ("python-iibench-2023",)


def _python_indexes(entry: Entry) -> RuleVerdict:
    """A Python iibench log names its indexes only when it built them after the load (caught
    above); otherwise it says nothing of them, and only the command line can."""
    log = entry.log
    today = log.format in PYTHON_FORMATS_SINCE_2023
    from_command = python_command_indexes(entry.command, client_since_2023_08=today)
    if from_command is not None:
        return RuleVerdict(
            "indexes_from_start",
            Status(from_command.status),
            from_command.message,
            value=from_command.shown,
            limit="in place from the start",
        )
    if today:
        why = (
            "since mdcallag/mytools 78887ab4 (2023-08-08) the Python iibench's `--setup` creates "
            "only the primary key and its secondary indexes exist from the start only with "
            "`--secondary_at_start`, which its log does not print"
        )
    else:
        why = (
            "the Python iibench of this format created its secondary indexes with the table "
            "under `--setup`, but its log says neither whether `--setup` ran nor how many "
            "(`--num_secondary_indexes`)"
        )
    return RuleVerdict(
        "indexes_from_start",
        Status.UNVERIFIED,
        f"Unverified: declared by entrant. The log does not show its indexes: {why}. A run "
        "streamed through the witness client is judged by its command line.",
        value="not in the log",
        limit="in place from the start",
    )


# --- the log adds up ----------------------------------------------------------------------

# Logs print rates with one or two decimals and times with a few: agreement is judged with a
# relative tolerance plus the printing precision of a single unit.
RATE_TOLERANCE = 0.02


def time_resolution(seconds: np.ndarray, log: ParsedLog | None = None) -> float:
    """The precision the log printed its times with (1 s, 0.1 s, 0.01 s, 0.001 s): as its
    format states it ('%.1f' prints 2.0 for two seconds), else read off the values. A rate
    recomputed from printed times is only known to within it."""
    if log is not None and log.time_precision:
        return log.time_precision
    return printed_resolution(seconds)


def clock_bounds(log: ParsedLog, seconds: np.ndarray) -> tuple[float, float]:
    """How far before and after a printed time the true one may lie: half a unit either way
    for a rounded clock; for a truncated one (Java's whole seconds) none before, a whole
    unit after."""
    unit = time_resolution(seconds, log)
    if log.clock == "truncated":
        return 0.0, unit
    return unit / 2, unit / 2


# The rows and seconds a stated rate covers, as floats, for a slice of the reports: made a piece
# at a time, so that no whole-series copy (rows as floats, their differences) is ever held.
Spans = Callable[[slice], tuple[np.ndarray, np.ndarray]]


def _cumulative_spans(series) -> Spans:
    rows = np.frombuffer(series.rows, dtype=np.int64)[: len(series)]
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]
    return lambda piece: (rows[piece].astype(np.float64), seconds[piece])


def _interval_spans(series, skip_first: bool) -> Spans:
    """Each report's interval: rows and seconds since the report before (since 0 for the first;
    `skip_first`: an excerpt's first interval began before the log and is not judged)."""
    rows = np.frombuffer(series.rows, dtype=np.int64)[: len(series)]
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]

    def spans(piece: slice) -> tuple[np.ndarray, np.ndarray]:
        if piece.start:
            with_previous = slice(piece.start - 1, piece.stop)
            return np.diff(rows[with_previous].astype(np.float64)), np.diff(seconds[with_previous])
        d_rows = np.diff(rows[piece].astype(np.float64), prepend=0.0)
        d_seconds = np.diff(seconds[piece], prepend=0.0)
        if skip_first and len(d_seconds):
            d_seconds[0] = 0.0
        return d_rows, d_seconds

    return spans


def _disagreements(stated: np.ndarray, spans: Spans, error: float, late: float | None = None):
    """Where a stated rate lies outside every rate rows / t allows, for a true time t from
    seconds - error to seconds + late (`late` defaults to `error`), give or take the relative
    tolerance and one unit of printing. Intervals the clock cannot tell from 0 say nothing and
    are left out."""
    late = error if late is None else late
    found = []
    for piece in pieces(len(stated)):
        (rows_here, seconds_here), stated_here = spans(piece), wide_piece(stated[piece])
        usable = (seconds_here > error) | ((error == 0) & (seconds_here > 0))
        low = np.divide(rows_here, seconds_here + late, out=np.zeros_like(rows_here), where=usable)
        high = np.divide(
            rows_here, seconds_here - error, out=np.zeros_like(rows_here), where=usable
        )
        margin = RATE_TOLERANCE * np.abs(stated_here) + 1.0
        outside = usable & ((stated_here < low - margin) | (stated_here > high + margin))
        found.append(np.flatnonzero(outside) + piece.start)
    return np.concatenate(found) if found else np.array([], dtype=np.int64)


def _rate_verdict(
    rule_id: str,
    what: str,
    series,
    stated: np.ndarray,
    spans: Spans,
    error: float,
    late: float | None = None,
) -> RuleVerdict:
    """Pass, or fail at the first report whose stated rate `what` does not add up."""
    found = _disagreements(stated, spans, error, late)
    if not len(found):
        return RuleVerdict(
            rule_id,
            Status.PASS,
            f"Every {what} agrees with the rows and seconds it covers.",
            limit=f"within {RATE_TOLERANCE:.0%}",
        )
    i = int(found[0])
    (rows,), (seconds,) = spans(slice(i, i + 1))
    # A truncated clock's best reading is half a unit after the printed time.
    seconds = seconds + ((late - error) / 2 if late is not None else 0.0)
    computed = rows / seconds
    return RuleVerdict(
        rule_id,
        Status.FAIL,
        f"The log says {_n(float(stated[i]))} rows/s for this {what}, but {_n(rows)} rows "
        f"in {seconds:,.1f} s is {_n(computed)} rows/s.",
        int(series.line[i]),
        _n(float(stated[i])),
        _n(computed),
    )


def check_cumulative_rate(entry: Entry, rules: RuleSet) -> RuleVerdict:
    series = entry.log.series
    seconds = np.frombuffer(series.seconds, dtype=np.float64)
    stated = held(series.cumulative_rate)
    # Each printed elapsed time is off by up to half its last digit; a truncated one (Java's
    # whole seconds) is the true time rounded down, so that is up to a whole unit later.
    early, late = clock_bounds(entry.log, seconds[: len(series)])
    spans = _cumulative_spans(series)
    return _rate_verdict("cumulative_rate", "cumulative rate", series, stated, spans, early, late)


def check_interval_rate(entry: Entry, rules: RuleSet) -> RuleVerdict:
    series = entry.log.series
    seconds = np.frombuffer(series.seconds, dtype=np.float64)
    stated = held(series.interval_rate)
    # An interval is the difference of two printed times: off by up to one last digit, rounded
    # or truncated alike (both ends move the same way).
    error = time_resolution(seconds[: len(series)], entry.log)
    spans = _interval_spans(series, skip_first=bool(_first_step(entry.log)))
    return _rate_verdict("interval_rate", "interval", series, stated, spans, error)


def check_no_missing_report(entry: Entry, rules: RuleSet) -> RuleVerdict:
    log = entry.log
    series = log.series
    if len(series) < 2:
        return RuleVerdict("no_missing_report", Status.PASS, "No report is missing.")
    if log.cadence != "rows":
        seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]
        return _no_time_gap(entry, seconds)
    rows = np.frombuffer(series.rows, dtype=np.int64)[: len(series)]
    steps = np.diff(rows)
    stated = log.parameters.get("report_every_rows")
    every = int(stated.value) if stated is not None else int(np.median(steps))
    gaps = np.flatnonzero(steps[:-1] > every) if every else []
    if len(gaps):
        i = int(gaps[0]) + 1
        return RuleVerdict(
            "no_missing_report",
            Status.FAIL,
            f"A report is missing between {_n(rows[i - 1])} and {_n(rows[i])} rows: the log "
            f"reports every {_n(every)} rows.",
            int(series.line[i]),
            _n(int(steps[i - 1])),
            _n(every),
        )
    return RuleVerdict("no_missing_report", Status.PASS, "No report is missing.")


# A time step is a missing report when it is this many times the log's interval, plus what
# the printed times may hide (one unit of the log's precision): a busy server delays a
# report by a fraction of the interval; a missing one doubles it.
MISSING_REPORT_FACTOR = 1.75


def _no_time_gap(entry: Entry, seconds: np.ndarray) -> RuleVerdict:
    if len(seconds) < 3:
        return RuleVerdict("no_missing_report", Status.PASS, "No report is missing.")
    log = entry.log
    # The cadence the log states ("Feedback every 5 seconds(s)", --secs_per_report), else
    # the median step.
    stated = log.parameters.get("report_every_seconds")
    typical = float(stated.value) if stated is not None else median_step(seconds)
    precision = time_resolution(seconds, log)
    longest = MISSING_REPORT_FACTOR * typical + precision
    # The last step is left out: the run's end cuts it short or long.
    i = _first_gap(seconds[:-1], longest)
    if i is not None:
        step = float(seconds[i] - seconds[i - 1])
        return RuleVerdict(
            "no_missing_report",
            Status.FAIL,
            f"A report is missing: {step:,.1f} s passed between two reports that come "
            f"every {typical:,.1f} s (times printed to {precision:g} s).",
            int(log.series.line[i]),
            f"{step:.1f} s",
            f"{typical:.1f} s",
        )
    return RuleVerdict(
        "no_missing_report",
        Status.PASS,
        f"No report is missing: the log reports every {typical:,.1f} s.",
    )


def _first_gap(seconds: np.ndarray, longest: float) -> int | None:
    """The first report that comes more than `longest` seconds after the one before, read a
    piece at a time."""
    for piece in pieces(len(seconds) - 1):
        gaps = np.flatnonzero(np.diff(seconds[piece.start : piece.stop + 1]) > longest)
        if len(gaps):
            return piece.start + int(gaps[0]) + 1
    return None


POST_LOAD_SECONDS = re.compile(r"in ([0-9]+(?:\.[0-9]+)?) seconds")


def check_totals_agree(entry: Entry, rules: RuleSet) -> RuleVerdict:
    totals, series = entry.log.totals, entry.log.series
    if totals is None or totals.rows is None:
        return _no_summary(entry.log)
    last_rows = int(series.rows[-1]) if len(series) else 0
    if totals.rows < last_rows:
        return RuleVerdict(
            "totals_agree",
            Status.FAIL,
            f"The summary says {_n(totals.rows)} rows, fewer than the {_n(last_rows)} reported.",
            totals.line,
            _n(totals.rows),
            _n(last_rows),
        )
    if totals.rows > last_rows:
        unreported = _unreported_rows(entry.log, totals)
        if totals.rows - last_rows > unreported:
            return RuleVerdict(
                "totals_agree",
                Status.FAIL,
                f"The summary says {_n(totals.rows)} rows, more than the {_n(last_rows)} the "
                f"reports reach (line {int(series.line[-1]):,}) by more than the "
                f"{_n(unreported)} rows a run may insert after its last report.",
                totals.line,
                _n(totals.rows),
                _n(last_rows),
            )
    if totals.seconds is not None and len(series) >= 2:
        verdict = _totals_time_verdict(entry, totals)
        if verdict is not None:
            return verdict
    return RuleVerdict(
        "totals_agree",
        Status.PASS,
        f"The summary's {_n(totals.rows)} rows agree with the reports.",
        totals.line,
    )


def _no_summary(log: ParsedLog) -> RuleVerdict:
    """Nothing to compare: say whether the run finished, and where its log ends."""
    unfinished = next((m for m in log.markers if m.kind == "unfinished"), None)
    if unfinished is not None:
        return RuleVerdict(
            "totals_agree",
            Status.UNVERIFIED,
            f"Unfinished: {unfinished.text}. There is no summary to compare with the reports.",
            unfinished.line,
            "unfinished",
            "a summary line",
        )
    done = next((m for m in log.markers if m.kind == "done"), None)
    if done is not None:
        where = f"it ends with '{done.text}' (line {done.line:,})"
    elif log.format == "java-iibench-tsv":
        where = "a Java TSV file holds reports only; its console prints the end of the run"
    else:
        where = "the log prints none"
    return RuleVerdict(
        "totals_agree",
        Status.UNVERIFIED,
        f"Unverified: no summary line to compare with the reports ({where}).",
        done.line if done is not None else None,
    )


def _unreported_rows(log: ParsedLog, totals) -> int:
    """How many rows a run may insert after its last report: fewer than one report step on a
    log that reports every N rows; on a log that reports every N seconds, what its fastest
    interval rate inserts in the time from the last report to the summary."""
    series = log.series
    rows = np.frombuffer(series.rows, dtype=np.int64)[: len(series)]
    if log.cadence == "rows" or totals.seconds is None:
        stated = log.parameters.get("report_every_rows")
        every = int(stated.value) if stated is not None else int(median_step(rows, from_zero=True))
        return max(every - 1, 0)
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]
    after = float(totals.seconds) - float(seconds[-1]) + time_resolution(seconds, log)
    fastest = max(float(np.nanmax(wide_piece(held(series.interval_rate)[: len(series)]))), 0.0)
    return int((1 + RATE_TOLERANCE) * fastest * max(after, 0.0)) + 1


def _totals_time_verdict(entry: Entry, totals) -> RuleVerdict | None:
    """The summary's time against the last report's: it may be later by a report interval (the
    final commit) plus the post-load work the log names ("Created secondary indexes in 3.5
    seconds"), not earlier, and not later by unexplained time."""
    series = entry.log.series
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: len(series)]
    last = float(seconds[-1])
    interval = median_step(seconds)
    slack = time_resolution(seconds, entry.log) + 0.05 + 0.01 * last
    named = [
        (marker, float(found[1]))
        for marker in entry.log.markers
        if marker.kind == "indexes_created_after_load"
        and (found := POST_LOAD_SECONDS.search(marker.text))
    ]
    post_load = sum(extra for _, extra in named)
    extra = float(totals.seconds) - last
    if extra < -slack:
        return RuleVerdict(
            "totals_agree",
            Status.FAIL,
            f"The summary says {_n(totals.seconds)} s, less than the {_n(last)} s of the last "
            "report.",
            totals.line,
            f"{_n(totals.seconds)} s",
            f"{_n(last)} s",
        )
    allowed = interval + post_load + slack
    if extra > allowed:
        return RuleVerdict(
            "totals_agree",
            Status.FAIL,
            f"The summary says {_n(totals.seconds)} s, {_n(round(extra, 1))} s after the last "
            "report, and the log names no work after the load that took that long.",
            totals.line,
            f"{_n(round(extra, 1))} s",
            f"{_n(round(allowed, 1))} s",
        )
    if named:
        marker, _ = named[0]
        return RuleVerdict(
            "totals_agree",
            Status.PASS,
            f"The summary's {_n(totals.rows)} rows agree with the reports; its "
            f"{_n(totals.seconds)} s include {_n(round(extra, 1))} s after the last report, "
            f"which the log names (line {marker.line:,}: '{marker.text.strip()[:120]}').",
            totals.line,
            f"{_n(round(extra, 1))} s",
            f"{_n(round(allowed, 1))} s",
        )
    return None


def check_whole_run(entry: Entry, rules: RuleSet) -> RuleVerdict:
    excerpt = next((m for m in entry.log.markers if m.kind == "excerpt"), None)
    cut = next((m for m in entry.log.markers if m.kind == "cut_off"), None)
    if excerpt is None and cut is not None:
        return RuleVerdict(
            "whole_run",
            Status.FAIL,
            f"The log is truncated: {cut.text}. It cannot show the end of the run.",
            cut.line,
            "truncated",
            "the whole run",
        )
    if excerpt is None:
        return RuleVerdict(
            "whole_run", Status.PASS, "The log starts at the beginning of the run.", value="whole"
        )
    return RuleVerdict(
        "whole_run",
        Status.FAIL,
        f"The log is an excerpt: {excerpt.text}. It cannot show the whole run.",
        excerpt.line,
        "excerpt",
        "the whole run",
    )


# --- the declared machine and software ----------------------------------------------------


def _hardware_cap(*, rule_id: str, field: str, limit: str, unit: str, singular: str | None = None):
    singular = singular or unit

    def check(entry: Entry, rules: RuleSet) -> RuleVerdict:
        bound = getattr(rules, limit)
        value = getattr(entry.setup, field)
        if bound is None:
            return RuleVerdict(rule_id, Status.PASS, f"No limit on {unit}.", value=_n(value))
        status = Status.PASS if value <= bound else Status.FAIL
        relation = "within" if status == Status.PASS else "over"
        return RuleVerdict(
            rule_id,
            status,
            f"Declared {_n(value)} {singular if value == 1 else unit}: {relation} the limit of {_n(bound)}.",
            value=_n(value),
            limit=_n(bound),
        )

    return check


def check_direct_attached(entry: Entry, rules: RuleSet) -> RuleVerdict:
    attached = "direct attached" if entry.setup.direct_attached else "not direct attached"
    if rules.require_direct_attached and not entry.setup.direct_attached:
        return RuleVerdict(
            "direct_attached",
            Status.FAIL,
            "Declared storage that is not direct attached; the rule requires direct-attached drives.",
            value=attached,
            limit="direct attached",
        )
    return RuleVerdict(
        "direct_attached", Status.PASS, f"Declared drives {attached}.", value=attached
    )


def check_raid(entry: Entry, rules: RuleSet) -> RuleVerdict:
    raid = entry.setup.raid_level.strip()
    no_raid = raid.lower() in ("", "none", "no", "jbod")
    if raid and not no_raid and not rules.raid_allowed:
        return RuleVerdict(
            "raid", Status.FAIL, f"Declared {raid}; this contest does not allow RAID.", value=raid
        )
    return RuleVerdict("raid", Status.PASS, f"Declared {raid or 'no RAID'}.", value=raid or "none")


def check_mysql_version(entry: Entry, rules: RuleSet) -> RuleVerdict:
    required = rules.required_mysql_version.strip()
    declared = entry.setup.server_version.strip()
    family = entry.setup.server_family
    # An entry of declared figures may come without a log: then only the declaration speaks.
    stated = entry.log.parameters.get("server_version") if entry.log is not None else None
    if not required:
        return RuleVerdict(
            "mysql_version", Status.PASS, "Any server version is allowed.", value=declared
        )
    if required.endswith("+"):
        return _current_server_verdict(entry, rules, stated)
    if family not in MYSQL_NUMBERED:
        server = f"{SERVER_FAMILIES.get(family, family)} {declared}".strip()
        return RuleVerdict(
            "mysql_version",
            Status.FAIL,
            f"Declared {server}; the rule requires MySQL {required}.x.",
            value=server,
            limit=f"MySQL {required}.x",
        )
    if stated is not None and not _version_matches(str(stated.value), required):
        return RuleVerdict(
            "mysql_version",
            Status.FAIL,
            f"The log shows server {stated.value}; the rule requires MySQL {required}.x.",
            stated.line,
            str(stated.value),
            f"{required}.x",
        )
    if not _version_matches(declared, required):
        return RuleVerdict(
            "mysql_version",
            Status.FAIL,
            f"Declared MySQL {declared}; the rule requires MySQL {required}.x.",
            value=declared,
            limit=f"{required}.x",
        )
    source = f"The log shows {stated.value}" if stated is not None else f"Declared MySQL {declared}"
    line = stated.line if stated is not None else None
    return RuleVerdict(
        "mysql_version",
        Status.PASS,
        f"{source}: MySQL {required}.x.",
        line,
        declared,
        f"{required}.x",
    )


def _version_number(version: str) -> tuple[int, ...] | None:
    """(major, minor) of "8.0.36-log", "10.11.19-MariaDB-0+deb12u1", "15.20 (Debian ...)"."""
    found = re.match(r"\s*[vV]?(\d+)(?:\.(\d+))?", version)
    if found is None:
        return None
    return (int(found[1]), int(found[2] or 0))


# A log's backend that names its server outright (the C benchmark's `# backend`, Python's
# dbms): a version it states is that server's, whatever the declaration says.
LOG_BACKENDS = {"postgresql": "postgresql", "postgres": "postgresql", "sqlite": "sqlite"}


def _server_family(entry: Entry, version: str) -> str:
    """The server the run used: the log's backend where it names one, MariaDB wherever its
    version string says so, else the declared family."""
    backend = entry.log.parameters.get("backend") if entry.log is not None else None
    if backend is not None and str(backend.value).lower() in LOG_BACKENDS:
        return LOG_BACKENDS[str(backend.value).lower()]
    return "mariadb" if "mariadb" in version.lower() else entry.setup.server_family


def _current_server_verdict(entry: Entry, rules: RuleSet, stated) -> RuleVerdict:
    """A "5.1+" rule: any current MySQL-family server or PostgreSQL. The version the log shows
    wins over the declared one; MariaDB is told by its version string wherever it says so."""
    since = _version_number(rules.required_mysql_version.strip()[:-1]) or (5, 1)
    declared = entry.setup.server_version.strip()
    version = str(stated.value) if stated is not None else declared
    family = _server_family(entry, version)
    number = _version_number(version)
    name = SERVER_FAMILIES.get(family, family)
    server = f"{name} {version}".strip()
    source = "The log shows" if stated is not None else "Declared"
    line = stated.line if stated is not None else None
    limit = rules.server_rule
    if family == "postgresql":
        ok = True
    elif family == "mariadb":
        ok = number is not None and number[0] >= MARIADB_CURRENT_SINCE
    elif family in MYSQL_NUMBERED:
        ok = number is not None and number >= since
    else:
        ok = False
    if ok:
        return RuleVerdict(
            "mysql_version", Status.PASS, f"{source} {server}: a current server.", line, server
        )
    return RuleVerdict(
        "mysql_version",
        Status.FAIL,
        f"{source} {server}; the rule allows {limit}.",
        line,
        server,
        limit,
    )


def _version_matches(version: str, required: str) -> bool:
    # "5.1.25-rc" matches "5.1"; "5.10" must not, and MariaDB's "10.11.19-MariaDB" is not MySQL.
    if "mariadb" in version.lower():
        return False
    core = version.strip().lstrip("vV")
    return core == required or core.startswith(required + ".") or core.startswith(required + "-")


def check_preferred_os(entry: Entry, rules: RuleSet) -> RuleVerdict:
    preferred = rules.preferred_os.strip()
    declared = entry.setup.os.strip()
    if not preferred or preferred.lower() in declared.lower():
        return RuleVerdict("preferred_os", Status.PASS, f"Declared {declared}.", value=declared)
    return RuleVerdict(
        "preferred_os",
        Status.WARN,
        f"Declared {declared}; {preferred} is preferred for easy comparison (a note, not a failure).",
        value=declared,
        limit=preferred,
    )


def check_deadline(entry: Entry, rules: RuleSet) -> RuleVerdict:
    if rules.deadline is None:
        return RuleVerdict("deadline", Status.PASS, "This contest has no deadline.")
    zone = ZoneInfo(rules.timezone)
    when = entry.submitted_at.astimezone(zone).strftime("%d %b %Y %H:%M %Z")
    due = rules.deadline.astimezone(zone).strftime("%d %b %Y %H:%M %Z")
    if entry.submitted_at <= rules.deadline:
        return RuleVerdict(
            "deadline",
            Status.PASS,
            f"Submitted {when}, before the deadline {due}.",
            value=when,
            limit=due,
        )
    return RuleVerdict(
        "deadline",
        Status.FAIL,
        f"Submitted {when}, after the deadline {due}.",
        value=when,
        limit=due,
    )


RULES: tuple[Rule, ...] = (
    Rule("target_rows", "The run inserts {target_rows} rows.", check_target_rows),
    Rule(
        "rows_per_commit",
        "A commit every {rows_per_commit} rows.",
        _stated_limit(
            rule_id="rows_per_commit",
            key="rows_per_commit",
            what="rows per commit",
            limit="rows_per_commit",
            exact=True,
        ),
    ),
    Rule(
        "rows_per_insert",
        "At most {max_rows_per_insert} rows per INSERT statement.",
        _stated_limit(
            rule_id="rows_per_insert",
            key="rows_per_insert",
            what="rows per INSERT",
            limit="max_rows_per_insert",
            exact=False,
        ),
    ),
    Rule("report_interval", "{cadence_rule}.", check_report_interval),
    Rule(
        "indexes_from_start",
        "Rows are inserted with the indexes in place: bulk load followed by ALTER TABLE is not allowed.",
        check_indexes_from_start,
    ),
    Rule(
        "cumulative_rate",
        "The log adds up: cumulative rates agree with rows / elapsed.",
        check_cumulative_rate,
    ),
    Rule(
        "interval_rate",
        "The log adds up: interval rates agree with the deltas.",
        check_interval_rate,
    ),
    Rule("no_missing_report", "The log adds up: no report is missing.", check_no_missing_report),
    Rule(
        "whole_run",
        "The log holds the whole run, from its first report (an excerpt cannot show it).",
        check_whole_run,
    ),
    Rule(
        "totals_agree", "The log adds up: its summary agrees with its reports.", check_totals_agree
    ),
    *PHYSICS_RULES,
    Rule(
        "sockets",
        "Hardware: at most {max_sockets} sockets.",
        _hardware_cap(
            rule_id="sockets",
            field="sockets",
            limit="max_sockets",
            unit="sockets",
            singular="socket",
        ),
        "Hardware: any number of sockets.",
    ),
    Rule(
        "cores",
        "Hardware: at most {max_cores} cores in total.",
        _hardware_cap(
            rule_id="cores", field="cores", limit="max_cores", unit="cores", singular="core"
        ),
        "Hardware: any number of cores.",
    ),
    Rule(
        "memory",
        "Hardware: at most {max_memory_gb} GB of memory.",
        _hardware_cap(
            rule_id="memory", field="memory_gb", limit="max_memory_gb", unit="GB of memory"
        ),
        "Hardware: any amount of memory.",
    ),
    Rule(
        "drives",
        "Hardware: at most {max_drives} drives.",
        _hardware_cap(
            rule_id="drives", field="drives", limit="max_drives", unit="drives", singular="drive"
        ),
        "Hardware: any number of drives.",
    ),
    Rule("direct_attached", "Hardware: drives are direct attached.", check_direct_attached),
    Rule("raid", "Hardware: RAID is allowed.", check_raid),
    *MACHINE_RULES,
    Rule(
        "mysql_version",
        "Software: {server_rule}.",
        check_mysql_version,
        "Software: any database server and version.",
    ),
    Rule(
        "preferred_os",
        "Software: {preferred_os} preferred, for comparison (never a failure).",
        check_preferred_os,
        "Software: any operating system.",
    ),
    Rule("deadline", "Submitted before the deadline.", check_deadline),
)

RULES_BY_ID = {rule.id: rule for rule in RULES}


def check_entry(
    entry: Entry, rules: RuleSet, rule_list: tuple[Rule, ...] = RULES
) -> list[RuleVerdict]:
    return [rule.check(entry, rules) for rule in rule_list]


def is_eligible(verdicts: list[RuleVerdict]) -> bool:
    return not any(v.status == Status.FAIL for v in verdicts)


def first_failure(verdicts: list[RuleVerdict]) -> RuleVerdict | None:
    return next((v for v in verdicts if v.status == Status.FAIL), None)


# The groups a page names a failing rule by, in the order the rules are listed.
RULE_GROUPS = (
    ("the run", ("target_rows",)),
    (
        "the log",
        (
            "rows_per_commit",
            "rows_per_insert",
            "report_interval",
            "indexes_from_start",
            "cumulative_rate",
            "interval_rate",
            "no_missing_report",
            "whole_run",
            "totals_agree",
        ),
    ),
    ("physics", ("physics_",)),
    (
        "hardware",
        ("sockets", "cores", "memory", "drives", "direct_attached", "raid", "machine_in_log"),
    ),
    ("software", ("mysql_version", "preferred_os")),
    ("the deadline", ("deadline",)),
    ("the stream", ("clock_agrees", "machine_declared", "server_version_witnessed", "exit_status")),
)


def rule_group(rule: str) -> str:
    for group, members in RULE_GROUPS:
        if rule in members or any(m.endswith("_") and rule.startswith(m) for m in members):
            return group
    return "the track"


def failures_summary(verdicts: list[RuleVerdict]) -> str:
    """What an ineligible entry's header and board row say: how many rules fail and every group
    they fall in, each with its first failure's words (issue 42: "The run stopped at 3,000,000
    rows" alone hid three physics failures). One failure is its own message."""
    failed = [v for v in verdicts if v.status == Status.FAIL]
    if len(failed) <= 1:
        return failed[0].message if failed else ""
    groups: dict[str, list[RuleVerdict]] = {}
    for verdict in failed:
        groups.setdefault(rule_group(verdict.rule), []).append(verdict)
    named = "; ".join(
        f"{group} ({len(members)}): {members[0].message}"
        if len(members) > 1
        else f"{group}: {members[0].message}"
        for group, members in groups.items()
    )
    return f"{len(failed)} rules fail. {named}"
