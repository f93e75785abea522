"""What every format parser shares: collecting parameters and markers, building the result,
the numbers people type, and the checks every series must pass."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from .columns import pieces
from .errors import LogError, LogTooLarge, num, quote
from .model import (
    COST_FIELDS,
    FORMAT_LABELS,
    IndexInfo,
    KeyTypeRun,
    LoadSummary,
    Marker,
    ParsedLog,
    Series,
    ServerSettingLine,
    Stated,
    Totals,
)
from .reader import LogReader
from .steps import median_step, step_spread

INT64_MAX = (1 << 63) - 1

# What a log states beside its reports (parameters, server settings, machine facts, indexes,
# markers, key-type runs) is kept whole until the parse ends, a few hundred bytes each: at most
# this many together, so a header of millions of distinct `# setting` lines costs what a real
# one does (a MariaDB server's header lists about 700 settings).
MAX_STATEMENTS = 10_000
# And their text together (a statement's text runs to its line's end, up to the line limit of
# 65,536 characters): a MariaDB header's settings are about 25,000 characters.
MAX_STATEMENT_CHARS = 4_000_000

# Series fields and how people call them in messages, unless a format names its columns.
FIELD_WORDS = {
    "rows": "rows",
    "seconds": "seconds",
    "interval_rate": "the interval rate",
    "cumulative_rate": "the cumulative rate",
    "deleted": "rows deleted",
    "interval_delete_rate": "the delete rate",
    "queries": "queries",
    "interval_query_rate": "the query rate",
    "latency_p50_ms": "the median latency",
    "latency_p99_ms": "the 99th percentile latency",
    "latency_max_ms": "the maximum latency",
    "client_cpu_s": "the client CPU",
    "server_cpu_s": "the server CPU",
    "machine_cpu_s": "the machine CPU",
    "server_rss_bytes": "the server memory",
    "read_bytes": "the bytes read",
    "write_bytes": "the bytes written",
    "read_ops": "the reads",
    "write_ops": "the writes",
    "db_size_bytes": "the database size",
}


@dataclass
class Detection:
    """What the first meaningful lines say the log is."""

    format: str  # a slug, or a family the parser refines ("python-iibench")
    header_line: int  # 1-based line of the header (or first line) of that format
    header: str  # that line's text
    parameters: dict[str, Stated] = field(default_factory=dict)  # from a command line echo
    markdown: bool = False  # metrics console inside the seed's markdown write-up


class LogParse:
    """One parse of one log: subclasses read lines, this keeps what they find."""

    def __init__(self, reader: LogReader, detection: Detection, declared: Mapping[str, int]):
        self.reader = reader
        self.detection = detection
        self.declared = declared
        self.format = detection.format
        self.parameters: dict[str, Stated] = dict(detection.parameters)
        self.markers: list[Marker] = []
        self.series = Series()
        self.totals: Totals | None = None
        self.indexes: list[IndexInfo] = []
        self.load: LoadSummary | None = None
        self.key_type_runs: list[KeyTypeRun] = []
        self.cut_off_last_line = False
        # How the format prints its times (see ParsedLog.clock, ParsedLog.time_precision).
        self.clock = "rounded"
        self.time_precision: float | None = None
        self.machine: dict[str, Stated] = {}
        self.settings: dict[str, ServerSettingLine] = {}
        # How this format names the series' columns, for messages.
        self.column_words: dict[str, str] = dict(FIELD_WORDS)
        # The characters of the text kept beside the reports (check_statements).
        self.kept_chars = 0

    # -- to be written by each format -------------------------------------------------------

    def parse(self, blocks: Iterable[list[str]]) -> None:
        """Read every line, from line 1 (the detection's header line is among them)."""
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------

    def state(self, key: str, value: int | float | str | bool, line: int) -> None:
        """Record a parameter the log states; the first statement of a key wins."""
        if key not in self.parameters:
            self.parameters[key] = Stated(value, line)
            self.check_statements(line, len(value) if isinstance(value, str) else 0)

    def mark(self, kind: str, line: int, text: str) -> None:
        self.markers.append(Marker(kind, line, text))
        self.check_statements(line, len(text))

    def check_statements(self, line: int, chars: int = 0) -> None:
        """Refuse the log at `line` once it has stated more than MAX_STATEMENTS things beside
        its reports, or more than MAX_STATEMENT_CHARS characters of them (`chars`: the text
        just kept): each is kept to the parse's end, and nothing per line may be."""
        self.kept_chars += chars
        if self.kept_chars > MAX_STATEMENT_CHARS:
            raise LogTooLarge(
                f"the log states more than {num(MAX_STATEMENT_CHARS)} characters of parameters, "
                "settings, machine facts, indexes and notes beside its reports: is this the "
                "benchmark's output?",
                line=line,
                limit="statements",
            )
        kept = (
            len(self.parameters)
            + len(self.markers)
            + len(self.settings)
            + len(self.machine)
            + len(self.indexes)
            + len(self.key_type_runs)
        )
        if kept > MAX_STATEMENTS:
            raise LogTooLarge(
                f"the log states more than {num(MAX_STATEMENTS)} parameters, settings, machine "
                "facts, indexes and notes beside its reports: is this the benchmark's output?",
                line=line,
                limit="statements",
            )

    def is_cut_off(self, line: int) -> bool:
        """True (and remembered) when `line` is a last line without its newline."""
        if line == self.reader.unterminated_line:
            self.cut_off_last_line = True
            return True
        return False

    def result(self) -> ParsedLog:
        if self.cut_off_last_line and not any(m.kind == "cut_off" for m in self.markers):
            line = self.reader.unterminated_line
            self.mark(
                "cut_off",
                line,
                f"line {num(line)}, the last, ends without a newline in the middle of a line "
                "the benchmark printed: the log was cut there and that line is left out",
            )
        unfinished = unfinished_marker(self)
        if unfinished is not None:
            self.markers.append(unfinished)
        cadence = report_cadence(self.series, self.parameters)
        excerpt = excerpt_marker(self.series, cadence, self.parameters)
        if excerpt is not None:
            self.markers.append(excerpt)
        return ParsedLog(
            format=self.format,
            format_label=FORMAT_LABELS[self.format],
            parameters=self.parameters,
            series=self.series,
            totals=self.totals,
            markers=self.markers,
            indexes=self.indexes,
            load=self.load,
            key_type_runs=self.key_type_runs,
            line_count=self.reader.line_count,
            cut_off_last_line=self.cut_off_last_line,
            machine=self.machine,
            settings=self.settings,
            cadence=cadence,
            column_words=dict(self.column_words),
            clock=self.clock,
            time_precision=self.time_precision,
        )

    def fail(self, message: str, line: int | None) -> LogError:
        """An error for `line`, unless an earlier report already holds a bad number."""
        earlier = first_bad_value(self.series, self.column_words, before=line)
        return earlier or LogError(message, line=line)

    def order_error(self, line: int, rows: int, seconds: float, grows: bool) -> LogError | None:
        """Why a report cannot follow the previous one, or None when it may.

        `grows` says the format prints a report every N rows, so equal rows mean a repeat;
        formats that report every N seconds may show the same rows through a stall.
        """
        series = self.series
        if not len(series):
            return None
        prev_rows, prev_seconds, prev_line = series.rows[-1], series.seconds[-1], series.line[-1]
        if rows < prev_rows:
            return self.fail(
                f"rows went down from {num(prev_rows)} to {num(rows)} (line {num(prev_line)}): "
                "upload one run per log, as the benchmark printed it",
                line,
            )
        if seconds < prev_seconds:
            return self.fail(
                f"time went down from {num(prev_seconds)} s to {num(seconds)} s "
                f"(line {num(prev_line)}): upload one run per log, as the benchmark printed it",
                line,
            )
        if rows == prev_rows and (grows or seconds == prev_seconds):
            return self.fail(
                f"this report repeats line {num(prev_line)} ({num(rows)} rows at "
                f"{num(seconds)} s): remove the repeated line",
                line,
            )
        return None

    def check_series(self, *, allow_empty: bool = False) -> None:
        """Every value finite and not negative, and at least one report."""
        bad = first_bad_value(self.series, self.column_words)
        if bad:
            raise bad
        if not len(self.series) and not allow_empty:
            raise LogError(
                f"the log has no report lines (it has {num(self.reader.line_count)} lines): "
                "upload the output of a run that reached its first report"
            )


def blocks_after(blocks: Iterable[list[str]], header_line: int) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) for every line after `header_line`."""
    first = 1
    for block in blocks:
        end = first + len(block)
        if end <= header_line + 1:
            first = end
            continue
        if first <= header_line:
            after = header_line + 1 - first
            block = block.lines_from(after) if hasattr(block, "lines_from") else block[after:]
            first = header_line + 1
        yield first, block
        first = end


def numbered_blocks(blocks: Iterable[list[str]], first: int = 1) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) for every block."""
    for block in blocks:
        yield first, block
        first += len(block)


# -- what the reports say about the log, whatever its format ------------------------------


def report_cadence(series: Series, parameters: Mapping[str, Stated]) -> str:
    """ "time" when the log reports every N seconds, "rows" when every N rows, "" when it has
    too few reports to tell. What the log states wins; else the steps that vary less (the
    last report is left out: it closes the run wherever it ends)."""
    if "report_every_seconds" in parameters:
        return "time"
    if "report_every_rows" in parameters:
        return "rows"
    if len(series) < 3:
        return ""
    n = len(series)
    rows = np.frombuffer(series.rows, dtype=np.int64)[: n - 1]
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[: n - 1]
    return "time" if _spread(seconds) < _spread(rows) else "rows"


def _spread(values: np.ndarray) -> float:
    """How much the steps from 0 to the first value and between the values vary around their
    median, relative to it (inf when it is not > 0)."""
    typical, distance = step_spread(values, from_zero=True)
    if typical <= 0:
        return math.inf
    return distance / typical


# The formats whose run ends with a line of its own (Python's `Totals:` or `Done`, Java's
# `Done!`, the C benchmark's `# summary`, sysbench's `SQL statistics:`): a log of one of them
# without it is a run that did not finish (killed, hung, or cut cleanly after a report). The
# Java TSV file has no such line.
FORMATS_WITH_AN_END = ("python-iibench", "java-iibench", "iibench-c", "sysbench-iibench")


def unfinished_marker(parse: LogParse) -> Marker | None:
    """An "unfinished" marker on the last report of a run whose end line never came."""
    series = parse.series
    ended = parse.totals is not None or any(m.kind == "done" for m in parse.markers)
    if ended or not len(series) or parse.format == "java-iibench-tsv":
        return None
    if not parse.format.startswith(FORMATS_WITH_AN_END):
        return None
    line, rows, seconds = int(series.line[-1]), int(series.rows[-1]), float(series.seconds[-1])
    return Marker(
        "unfinished",
        line,
        f"the log ends at line {line:,}, a report of {rows:,} rows at {seconds:,.1f} s, with no "
        "summary or end line after it: the run did not finish",
    )


# A first report later than this many of the log's own report steps is not the run's first.
EXCERPT_STEPS = 3


def excerpt_marker(series: Series, cadence: str, parameters: Mapping[str, Stated]) -> Marker | None:
    """An "excerpt" marker when the first report comes long after the start of the run (a log
    cut from the middle of a run): measured in the log's own cadence, against the interval it
    states or else the median one."""
    n = len(series)
    if n < 2:
        return None
    if not cadence:
        return _excerpt_by_both(series)
    if cadence == "time":
        values = np.frombuffer(series.seconds, dtype=np.float64)[:n]
        stated, unit = parameters.get("report_every_seconds"), "s"
    else:
        values = np.frombuffer(series.rows, dtype=np.int64)[:n]
        stated, unit = parameters.get("report_every_rows"), "rows"
    every = float(stated.value) if stated is not None else median_step(values)
    first = float(values[0])
    if every <= 0 or first <= EXCERPT_STEPS * every + (1.0 if unit == "s" else 0.0):
        return None
    where = f"{first:,.0f} s" if unit == "s" else f"{first:,.0f} rows"
    return Marker(
        "excerpt",
        int(series.line[0]),
        f"the first report is at {where} ({int(series.rows[0]):,} rows) where the log reports "
        f"every {every:,.0f} {unit}: the log does not start at the beginning of the run",
    )


def _excerpt_by_both(series: Series) -> Marker | None:
    """Too few reports to tell the cadence (two): an excerpt when the first report is more
    than EXCERPT_STEPS of the one step between them from the start both in rows and in seconds
    (two lines at 40,441,000 rows and 4,660 s, ten seconds apart). A run that ended just after
    its first report (979,000 rows at 10 s, then 1,000,000 at 20 s) is not one: its seconds
    agree with a start at 0."""
    rows = np.frombuffer(series.rows, dtype=np.int64)[:2].astype(np.float64)
    seconds = np.frombuffer(series.seconds, dtype=np.float64)[:2]
    row_step, second_step = rows[1] - rows[0], seconds[1] - seconds[0]
    if row_step <= 0 or second_step <= 0:
        return None
    if rows[0] <= EXCERPT_STEPS * row_step or seconds[0] <= EXCERPT_STEPS * second_step + 1.0:
        return None
    return Marker(
        "excerpt",
        int(series.line[0]),
        f"the first report is at {seconds[0]:,.0f} s ({int(rows[0]):,} rows) and the next "
        f"comes {second_step:,.0f} s and {int(row_step):,} rows later: the log does not start "
        "at the beginning of the run",
    )


def numbered(blocks: Iterable[list[str]], start: int = 1) -> Iterator[tuple[int, str]]:
    """(line number, text) pairs over blocks of lines; for the formats that are not hot."""
    line = start - 1
    for block in blocks:
        for text in block:
            line += 1
            yield line, text


def first_bad_value(
    series: Series, words: Mapping[str, str], before: int | None = None
) -> LogError | None:
    """The earliest report holding NaN, infinity or a negative number, as an error."""
    worst: tuple[int, str, float] | None = None
    n = len(series.line)
    for item in fields(series):
        column = getattr(series, item.name)
        if column is None or item.name == "line" or not len(column):
            continue
        values = np.frombuffer(column, dtype=column.typecode)[:n]
        # Only reports before the earliest bad one found so far can change the answer.
        index = _first_bad(values[: worst[0]] if worst else values, item.name in COST_FIELDS)
        if index is not None:
            worst = (index, item.name, values[index].item())
    if worst is None:
        return None
    index, name, value = worst
    line = int(series.line[index])
    if before is not None and line >= before:
        return None
    shown = num(value) if math.isfinite(value) else str(value)
    return LogError(
        f"{words.get(name, name)} is {shown}: a report holds finite numbers that are not "
        "negative; was the line edited?",
        line=line,
    )


def _first_bad(values: np.ndarray, cost: bool) -> int | None:
    """The first index of a negative count, or of a value that is not a finite number >= 0
    (a cost may be NaN: a report could not measure it, "-"), or None."""
    for piece in pieces(len(values)):
        here = values[piece]
        if here.dtype.kind == "i":
            bad = here < 0
        elif cost:
            bad = np.isinf(here) | (here < 0)
        else:
            bad = ~(np.isfinite(here) & (here >= 0))
        hits = np.flatnonzero(bad)
        if len(hits):
            return piece.start + int(hits[0])
    return None


def trim_series(series: Series) -> None:
    """Cut every array to the number of complete reports (after an append failed midway)."""
    n = len(series.line)
    for item in fields(series):
        column: array | None = getattr(series, item.name)
        if column is not None and len(column) > n:
            del column[n:]


def to_int(text: str, what: str, line: int) -> int:
    """An integer the log prints; too large for 64 bits is an error a person can read."""
    try:
        value = int(text)
    except ValueError:
        try:
            as_float = float(text)
        except ValueError:
            raise LogError(f"{what} {quote(text)} is not a number", line=line) from None
        if not as_float.is_integer():
            raise LogError(f"{what} {quote(text)} is not a whole number", line=line) from None
        value = int(as_float)
    if value > INT64_MAX:
        raise LogError(
            f"{what} {num(value)} is larger than a 64-bit integer: was the line edited?",
            line=line,
        )
    return value


def to_float(text: str, what: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise LogError(f"{what} {quote(text)} is not a number", line=line) from None


OPTION_KEYS = {
    # Python iibench flags, sysbench-iibench options (dashes read as underscores).
    "max_rows": ("target_rows", int),
    "rows_per_commit": ("rows_per_commit", int),
    "rows_per_report": ("report_every_rows", int),
    "secs_per_report": ("report_every_seconds", int),
    "report_interval": ("report_every_seconds", int),
    "query_threads": ("query_threads", int),
    "insert_threads": ("writers", int),
    "engine": ("engine", str),
    "mysql_storage_engine": ("engine", str),
    "dbms": ("backend", str),
    "db_driver": ("backend", str),
    "num_secondary_indexes": ("secondary_indexes", int),
    "inserts_per_second": ("max_rate", int),
    "seed": ("seed", int),
}


def command_parameters(text: str, line: int) -> dict[str, Stated]:
    """Parameters from an echoed command line (`python iibench.py --max_rows=...`)."""
    found: dict[str, Stated] = {}
    for word in text.split():
        if not word.startswith("--"):
            continue
        name, _, value = word[2:].partition("=")
        name = name.replace("-", "_")
        if name == "secondary_at_end" and value.lower() not in ("0", "false", "off", "no"):
            found["indexes_after_load"] = Stated(True, line)
        elif name in OPTION_KEYS and value:
            key, kind = OPTION_KEYS[name]
            try:
                found.setdefault(key, Stated(kind(value), line))
            except ValueError:
                continue
    return found
