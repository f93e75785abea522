"""What a parsed iiBench log is: plain dataclasses, no behaviour beyond a length."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field


def int_array() -> array:
    return array("q")


def float_array() -> array:
    return array("d")


# Line numbers take 4 bytes, not 8: a 2,000,000-report series is 8 MB smaller while an upload
# is checked. The reader refuses a log of more lines (LogReader, MAX_LINES).
MAX_LINES = (1 << 31) - 1


def line_array() -> array:
    return array("i")


@dataclass
class Series:
    """Columnar samples, one index per report line; arrays from the `array` module (numpy
    reads one as `np.frombuffer(column, dtype=column.typecode)`).

    Every array that is not None has one entry per report line. The optional ones are set
    only when the log has that quantity (some deletes or queries); Java logs state a query
    rate but no query count, so there `interval_query_rate` can be set while `queries` is None.
    """

    rows: array = field(default_factory=int_array)  # 'q' cumulative rows inserted
    seconds: array = field(default_factory=float_array)  # 'd' elapsed seconds since the start
    interval_rate: array = field(default_factory=float_array)  # 'd' rows/s over the interval
    cumulative_rate: array = field(default_factory=float_array)  # 'd' rows/s since the start
    line: array = field(default_factory=line_array)  # 'i' 1-based line number of the report
    deleted: array | None = None  # 'q' cumulative rows deleted, when the log has deletes
    interval_delete_rate: array | None = None  # 'd'
    queries: array | None = None  # 'q' cumulative queries, when the log has queries
    interval_query_rate: array | None = None  # 'd' queries/s over the interval
    # What each interval cost (iibench-c format 2; Python iibench's max_i): 'd' arrays, NaN
    # where a report could not measure it; None when no report of the log has it.
    latency_p50_ms: array | None = None  # INSERT response time in the interval
    latency_p99_ms: array | None = None
    latency_max_ms: array | None = None
    client_cpu_s: array | None = None  # CPU seconds in the interval
    server_cpu_s: array | None = None
    server_rss_bytes: array | None = None  # at the report
    read_bytes: array | None = None  # data device, in the interval
    write_bytes: array | None = None
    read_ops: array | None = None
    write_ops: array | None = None
    db_size_bytes: array | None = None  # table and indexes, at the report
    machine_cpu_s: array | None = None  # the whole machine's busy CPU (format 3)

    def __len__(self) -> int:
        return len(self.rows)


# The Series fields a report may leave unmeasured (NaN), as opposed to the counts and rates
# every report has.
COST_FIELDS = (
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "client_cpu_s",
    "server_cpu_s",
    "server_rss_bytes",
    "read_bytes",
    "write_bytes",
    "read_ops",
    "write_ops",
    "db_size_bytes",
    "machine_cpu_s",
)


@dataclass(frozen=True)
class ServerSettingLine:
    """A server variable as the C benchmark's header lists it (`# setting NAME STATE VALUE`):
    `changed` when it differs from the server's default, `default`, or `unknown`."""

    value: str
    state: str
    line: int


@dataclass(frozen=True)
class Stated:
    """A value the log states, with the line that states it."""

    value: int | float | str | bool
    line: int


@dataclass(frozen=True)
class Marker:
    """A notable line: kind is e.g. "indexes_created_after_load", "stopped", "failed",
    "assumption", "insert_exceptions", "error", "cut_off", "excerpt" (the first report comes
    long after the start: the log does not hold the beginning of the run)."""

    kind: str
    line: int
    text: str


@dataclass(frozen=True)
class IndexInfo:
    """An index as the C benchmark's header lists it.

    `primary` is read from the name the server gives the primary key: PRIMARY (MySQL),
    NAME_pkey (PostgreSQL), sqlite_autoindex_* (SQLite).
    """

    name: str
    columns: tuple[str, ...]
    unique: bool
    created: str  # "before_load" | "after_load"
    line: int
    primary: bool = False


@dataclass(frozen=True)
class Totals:
    """The log's own summary line (Python "Totals:", C "# summary", Java's last report before
    "Done!", sysbench's "SQL statistics")."""

    rows: int | None
    seconds: float | None
    rate: float | None
    status: str  # completed | stopped | failed
    line: int


@dataclass(frozen=True)
class LoadSummary:
    """The C benchmark's `mode=load` summary (seed 003's bulk load)."""

    rows: int
    keys: int
    row_length: int
    seconds: float
    rows_per_s: float
    kv_pairs_per_s: float
    mb_per_s: float
    line: int


@dataclass(frozen=True)
class MeterReading:
    """A metrics-console meter: events and their rates in events/second. The C benchmark
    counts events but keeps no moving averages: there only the mean rate is set."""

    count: int
    mean_rate: float
    rate_1m: float | None = None
    rate_5m: float | None = None
    rate_15m: float | None = None


@dataclass(frozen=True)
class KeyTypeRun:
    """One table of seed 004 (BASELINE / UUID_CHAR / UUID_OPTIMIZED), or one run of the C
    benchmark with `--pk` (named by its key kind: autoinc / uuid-char / uuid-ordered).

    `group` is the heading of the test the run belongs to when the log is the seed's markdown
    write-up (several tests, three tables each); it is "" for a plain console capture.
    """

    name: str
    minutes: float
    rows: int
    reads: MeterReading | None
    writes: MeterReading | None
    line: int
    group: str = ""


@dataclass
class ParsedLog:
    format: str  # slug, e.g. "python-iibench-2023"
    format_label: str  # for people: "Python iibench (2023 to now)"
    parameters: dict[str, Stated]  # normalized keys, only what the log states
    series: Series
    totals: Totals | None
    markers: list[Marker]
    indexes: list[IndexInfo]
    load: LoadSummary | None
    key_type_runs: list[KeyTypeRun]
    line_count: int
    # The last line had no newline and could not be read (a report or summary cut short):
    # it was ignored, not refused.
    cut_off_last_line: bool
    # The machine the benchmark ran on (`# machine KEY VALUE`: cpu_model, cores, memory_bytes,
    # data_device_model, ...) and the server's settings, as the C benchmark's header has them.
    machine: dict[str, Stated] = field(default_factory=dict)
    settings: dict[str, ServerSettingLine] = field(default_factory=dict)
    # Derived from the reports by `derive` (common.py), whatever the format:
    # "time" when the log reports every N seconds (Java, Python 2020 on, sysbench), "rows"
    # when every N rows (Python 2009 to 2019, the C benchmark); "" without two reports.
    cadence: str = ""
    # How the log names its series' columns ("seconds" -> "elap_secs"), for evidence.
    column_words: dict[str, str] = field(default_factory=dict)
    # How the log prints its elapsed times: "rounded" to `time_precision` (Python's '%.1f'),
    # or "truncated" (Java's `elapsed / 1000`: the true time is 0 to 1 s after the printed
    # one). `time_precision` is the unit the format prints (1.0, 0.1, ...), None when the
    # format does not say and it is read off the values.
    clock: str = "rounded"
    time_precision: float | None = None


FORMAT_LABELS = {
    "python-iibench-2009-03": "Python iibench (March 2009)",
    "python-iibench-2009-03b": "Python iibench (spring 2009, with table_size)",
    "python-iibench-2009-04": "Python iibench (2009 to 2019)",
    "python-iibench-2020-06": "Python iibench (mid 2020)",
    "python-iibench-2020-09": "Python iibench (2020 to 2022)",
    "python-iibench-2023": "Python iibench (2023 to now)",
    "java-iibench": "Java iibench (console)",
    "java-iibench-tsv": "Java iibench (TSV file)",
    "sysbench-iibench": "sysbench iibench (Lua)",
    "iibench-c": "iibench-c (this project's C benchmark)",
    "metrics-console": "Metrics console (primary-key types)",
}
