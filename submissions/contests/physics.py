"""Physics: what no machine can do, judged from the log's own columns and the declaration. Pure
(no Django), like `rules`, whose Verdict and Rule it uses: each rule is data (a limit, its
tolerance and where it comes from: docs/physics.md) plus one small function.

These rules catch careless fakes, not careful ones. A log whose times were divided without its
cost columns being touched claims more CPU seconds than the machine has, more device requests
than its drives can serve, or more rows than its own INSERT latency allows. A forger who also
scales the cost columns, or who types a log from scratch, passes them: an uploaded file stays
self-reported whatever these say.

Each rule passes, fails naming the interval's line and the numbers, or says "not stated" when
the log has no such column (Status.UNVERIFIED). An interval shorter than MIN_SECONDS is not
judged: the last report of a run may close an interval of a few rows, and rounding rules there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from submissions.contests.rule_types import Entry, Rule, RuleSet, RuleVerdict, Status
from submissions.logparse.columns import held, pieces, wide_piece
from submissions.logparse.model import ParsedLog
from submissions.measures.numbers import number as _n

DOC = "docs/physics.md"
MIN_SECONDS = 0.2

# --- the machine's CPUs -------------------------------------------------------------------

# CPU seconds in an interval may exceed CPUs x seconds by this share, plus CPU_SLACK_SECONDS per
# CPU: the CPU counters tick in 10 ms (/proc/stat) and are read a moment apart from the clock.
CPU_TOLERANCE = 0.05
CPU_SLACK_SECONDS = 0.02
# Without `# machine cpus` in the log, a declared core is taken to run two threads (SMT).
THREADS_PER_DECLARED_CORE = 2
CPU_COLUMNS = (
    ("machine_cpu_s", "machine CPU"),
    ("server_cpu_s", "server CPU"),
    ("client_cpu_s", "client CPU"),
)

# --- the drives (docs/physics.md, "Drives") -----------------------------------------------


@dataclass(frozen=True)
class DriveLimits:
    """What one drive of a kind can do at most, per second; a declared array multiplies it."""

    random_reads: int  # 16 KiB random reads, the figure a B-tree past its cliff lives on
    read_ops: int  # read requests of any size
    write_ops: int  # write requests (a controller's write-back cache absorbs many)
    bytes: int  # read or written
    source: str


DRIVES = {
    "hdd": DriveLimits(
        random_reads=200,
        read_ops=500,
        write_ops=5_000,
        bytes=300_000_000,
        source="10k rpm: ~3.5 ms seek + 3 ms rotation, ~150-200 random reads/s; 15k rpm ~250",
    ),
    "ssd": DriveLimits(
        random_reads=100_000,
        read_ops=200_000,
        write_ops=200_000,
        bytes=1_200_000_000,
        source="SAS 12 Gb/s: 1.2 GB/s on the link (SATA: 600 MB/s); ~100k random reads/s",
    ),
    "nvme": DriveLimits(
        random_reads=1_500_000,
        read_ops=2_500_000,
        write_ops=2_500_000,
        bytes=16_000_000_000,
        source="PCIe 5.0 x4: ~15.8 GB/s on the link; the fastest drives ~1.5-2.5M IOPS",
    ),
}
# The drives' ceilings are the best drives of their kind; a log may pass them by this factor
# (whole-device counters include other processes' I/O, and a cache may answer some requests).
DEVICE_MARGIN = 1.5
# Past the cliff: an interval whose rows each cost at least this many device reads.
CLIFF_READS_PER_ROW = 0.01

# --- the rate -----------------------------------------------------------------------------

# The bundled C benchmark on MariaDB BLACKHOLE (nothing stored: the client and the server's
# parsing alone), on this project's 2-CPU VM, a private server, 3 runs of 2,000,000 rows with a
# report every 200,000 (25 Nov 2026, docs/physics.md): 190,168-222,494 rows/s on average, its
# fastest interval 638,978 rows/s, so 320,000 rows/s per logical CPU. A storage engine only adds
# work; RATE_MARGIN allows for CPUs four times as fast per thread.
BLACKHOLE_ROWS_PER_CPU = 320_000
RATE_MARGIN = 4
ROWS_PER_CPU_CEILING = BLACKHOLE_ROWS_PER_CPU * RATE_MARGIN
# An INSERT's latency: at least half the statements that ended in an interval took the median
# (p50) or longer, and one writer's statements follow one another. The bucket middles are
# within 0.4%; this tolerance covers them and the interval's edges.
LATENCY_TOLERANCE = 0.10


@dataclass(frozen=True)
class Interval:
    """One report's interval: its index, line, rows and seconds since the report before."""

    index: int
    line: int
    rows: float
    seconds: float


@dataclass(frozen=True)
class Piece:
    """A piece of the log's report intervals (logparse.columns.pieces: a whole-series pass
    never copies a whole column): their rows and seconds since the report before, and which
    are long enough to judge."""

    where: slice
    rows: np.ndarray
    seconds: np.ndarray
    judged: np.ndarray  # bool

    def column(self, log: ParsedLog, name: str) -> np.ndarray | None:
        values = getattr(log.series, name, None)
        return None if values is None else wide_piece(held(values)[self.where])

    def interval(self, log: ParsedLog, offset: int) -> Interval:
        index = self.where.start + offset
        return Interval(
            index,
            int(log.series.line[index]),
            float(self.rows[offset]),
            float(self.seconds[offset]),
        )


def interval_pieces(log: ParsedLog) -> Iterator[Piece]:
    """The report intervals, a piece at a time; one shorter than MIN_SECONDS is not judged
    (nor an excerpt's first, which began before the log)."""
    series = log.series
    rows, seconds = held(series.rows), held(series.seconds)
    skip_first = any(marker.kind == "excerpt" for marker in log.markers)
    for where in pieces(len(series)):
        before = max(where.start - 1, 0)
        row_steps = np.diff(wide_piece(rows[before : where.stop]))
        second_steps = np.diff(wide_piece(seconds[before : where.stop]))
        if where.start == 0:
            row_steps = np.concatenate((wide_piece(rows[:1]), row_steps))
            second_steps = np.concatenate((wide_piece(seconds[:1]), second_steps))
        judged = second_steps >= MIN_SECONDS
        if where.start == 0 and skip_first:
            judged[0] = False
        yield Piece(where, row_steps, second_steps, judged)


def first_over(
    log: ParsedLog, measured: Callable[[Piece], np.ndarray], bound: Callable[[Piece], np.ndarray]
) -> tuple[Interval | None, int]:
    """The first judged interval whose measured value passes its bound (None if none does),
    and how many judged intervals measured it (a NaN is an interval the log did not measure)."""
    counted = 0
    for piece in interval_pieces(log):
        values = measured(piece)
        with np.errstate(invalid="ignore"):
            seen = piece.judged & ~np.isnan(values)
            over = np.flatnonzero(seen & (values > bound(piece)))
        if len(over):
            return piece.interval(log, int(over[0])), counted + int(np.count_nonzero(seen))
        counted += int(np.count_nonzero(seen))
    return None, counted


def earliest_over(
    log: ParsedLog, names: list[str], bound: Callable[[Piece], np.ndarray]
) -> tuple[Interval | None, str, int]:
    """Over several columns of one bound: the earliest interval any of them passes it (the
    first column, in `names`' order, at that interval), and how many measurements were judged."""
    earliest: tuple[Interval | None, str] = (None, "")
    judged = 0
    for name in names:
        found, counted = first_over(log, lambda piece, name=name: piece.column(log, name), bound)
        judged += counted
        if found is not None and (earliest[0] is None or found.index < earliest[0].index):
            earliest = (found, name)
    return earliest[0], earliest[1], judged


def _value(log: ParsedLog, name: str, interval: Interval) -> float:
    return float(getattr(log.series, name)[interval.index])


def _has(log: ParsedLog, name: str) -> bool:
    return getattr(log.series, name, None) is not None


def _not_stated(rule_id: str, what: str) -> RuleVerdict:
    return RuleVerdict(rule_id, Status.UNVERIFIED, f"Not stated: {what}")


def logical_cpus(entry: Entry) -> tuple[int, str]:
    """The CPUs the run had, and where that comes from: the log's `# machine cpus`, else the
    declared cores, each taken to run two threads."""
    stated = entry.log.machine.get("cpus")
    if stated is not None and str(stated.value).isdigit() and int(stated.value) > 0:
        return int(stated.value), f"the log's line {stated.line:,}"
    cores = entry.setup.cores * THREADS_PER_DECLARED_CORE
    return cores, f"{_n(entry.setup.cores)} declared cores x {THREADS_PER_DECLARED_CORE} threads"


def check_cpu(entry: Entry, rules: RuleSet) -> RuleVerdict:
    cpus, where = logical_cpus(entry)
    columns = [(name, label) for name, label in CPU_COLUMNS if _has(entry.log, name)]
    if not columns:
        return _not_stated("physics_cpu", "the log has no CPU columns.")

    def allowed(piece: Piece) -> np.ndarray:
        return cpus * (piece.seconds * (1 + CPU_TOLERANCE) + CPU_SLACK_SECONDS)

    found, name, judged = earliest_over(entry.log, [name for name, _ in columns], allowed)
    if found is not None:
        label = dict(columns)[name]
        used = _value(entry.log, name, found)
        limit = cpus * (found.seconds * (1 + CPU_TOLERANCE) + CPU_SLACK_SECONDS)
        return RuleVerdict(
            "physics_cpu",
            Status.FAIL,
            f"line {found.line:,}: {_n(round(used, 3))} s of {label} in an interval "
            f"of {_n(round(found.seconds, 3))} s, more than {cpus} logical CPUs "
            f"({where}) can give ({_n(round(limit, 3))} s with "
            f"{CPU_TOLERANCE:.0%} and {CPU_SLACK_SECONDS} s per CPU for the clocks).",
            found.line,
            f"{used:g} s",
            f"{limit:.3f} s",
        )
    if not judged:
        return _not_stated("physics_cpu", "no interval of the log measured its CPU.")
    names = ", ".join(label for _, label in columns)
    return RuleVerdict(
        "physics_cpu",
        Status.PASS,
        f"In every interval the {names} fit {cpus} logical CPUs ({where}) x the interval.",
    )


def _drive(entry: Entry) -> tuple[DriveLimits | None, int]:
    return DRIVES.get(entry.setup.drive_kind), max(entry.setup.drives, 1)


# A virtual or cloud volume has no row in the drive table: its ceiling is what its provider
# grants (a volume type's IOPS and throughput), which neither the log nor the declaration says.
VIRTUAL_UNKNOWN = (
    "a virtual or cloud volume was declared: its IOPS and throughput caps are its provider's, "
    "which the registry cannot know, so the drive table bounds nothing here."
)


def _no_drive_limits(entry: Entry, rule_id: str, unset: str) -> RuleVerdict:
    if entry.setup.drive_kind == "virtual":
        return _not_stated(rule_id, VIRTUAL_UNKNOWN)
    return _not_stated(rule_id, unset)


def _per_second_check(
    rule_id: str, columns: tuple[tuple[str, str, Callable[[DriveLimits], int]], ...], unit: str
):
    """A rule: each column per second within the declared drives' ceiling for it."""

    def check(entry: Entry, rules: RuleSet) -> RuleVerdict:
        limits, drives = _drive(entry)
        if limits is None:
            return _no_drive_limits(
                entry, rule_id, "no drive kind was declared to judge the device by."
            )
        found = [(name, label, of) for name, label, of in columns if _has(entry.log, name)]
        if not found:
            return _not_stated(rule_id, "the log has no device columns.")
        kind = entry.setup.drive_kind
        # A count per second over the ceiling: the count over the seconds x the ceiling (one
        # bound a column, since the ceilings differ).
        judged = 0
        earliest = None
        for name, label, of in found:
            ceiling = of(limits) * drives * DEVICE_MARGIN
            over, counted = first_over(
                entry.log,
                lambda piece, name=name: piece.column(entry.log, name),
                lambda piece, ceiling=ceiling: piece.seconds * ceiling,
            )
            judged += counted
            if over is not None and (earliest is None or over.index < earliest[0].index):
                earliest = (over, name, label, of)
        if earliest is not None:
            interval, name, label, of = earliest
            count = _value(entry.log, name, interval)
            rate = count / interval.seconds
            ceiling = of(limits) * drives * DEVICE_MARGIN
            return RuleVerdict(
                rule_id,
                Status.FAIL,
                f"line {interval.line:,}: {_n(round(count))} {label} in "
                f"{_n(round(interval.seconds, 3))} s is {_n(round(rate))} {unit}; "
                f"{_n(drives)} declared {kind} drive(s) do at most "
                f"{_n(of(limits) * drives)} ({DOC}; {_n(round(ceiling))} with a "
                f"{DEVICE_MARGIN:g}x margin).",
                interval.line,
                f"{rate:.0f} {unit}",
                f"{ceiling:.0f} {unit}",
            )
        if not judged:
            return _not_stated(rule_id, "no interval of the log measured its device.")
        return RuleVerdict(
            rule_id,
            Status.PASS,
            f"Every interval's {', '.join(label for _, label, _ in found)} fit "
            f"{_n(drives)} {kind} drive(s) ({DOC}).",
        )

    return check


check_device_ops = _per_second_check(
    "physics_device_ops",
    (
        ("read_ops", "device reads", lambda limits: limits.read_ops),
        ("write_ops", "device writes", lambda limits: limits.write_ops),
    ),
    "requests/s",
)
check_device_bytes = _per_second_check(
    "physics_device_bytes",
    (
        ("read_bytes", "bytes read", lambda limits: limits.bytes),
        ("write_bytes", "bytes written", lambda limits: limits.bytes),
    ),
    "bytes/s",
)


def check_reads_past_cliff(entry: Entry, rules: RuleSet) -> RuleVerdict:
    """Past the cliff a row costs device reads: the stated rate x reads per row is the reads
    per second the drives served, which their random reads bound."""
    limits, drives = _drive(entry)
    if limits is None:
        return _no_drive_limits(entry, "physics_reads_per_row", "no drive kind was declared.")
    if not _has(entry.log, "read_ops"):
        return _not_stated("physics_reads_per_row", "the log does not count device reads.")
    ceiling = limits.random_reads * drives * DEVICE_MARGIN
    past = 0
    for piece in interval_pieces(entry.log):
        reads, rates = piece.column(entry.log, "read_ops"), piece.column(entry.log, "interval_rate")
        with np.errstate(divide="ignore", invalid="ignore"):
            per_row = np.where(piece.rows > 0, reads / piece.rows, np.nan)
            beyond = piece.judged & (per_row >= CLIFF_READS_PER_ROW)
            over = np.flatnonzero(beyond & (rates * per_row > ceiling))
        if len(over):
            interval = piece.interval(entry.log, int(over[0]))
            rate, reads_per_row = float(rates[over[0]]), float(per_row[over[0]])
            served = rate * reads_per_row
            return RuleVerdict(
                "physics_reads_per_row",
                Status.FAIL,
                f"line {interval.line:,}: past the cliff, {_n(round(rate))} "
                f"rows/s x {reads_per_row:.3f} device reads per row is {_n(round(served))} random "
                f"reads/s; {_n(drives)} declared {entry.setup.drive_kind} drive(s) serve at most "
                f"{_n(limits.random_reads * drives)} ({DOC}; {_n(round(ceiling))} with a "
                f"{DEVICE_MARGIN:g}x margin).",
                interval.line,
                f"{served:.0f} reads/s",
                f"{ceiling:.0f} reads/s",
            )
        past += int(np.count_nonzero(beyond))
    if not past:
        return RuleVerdict(
            "physics_reads_per_row",
            Status.PASS,
            f"No interval reads {CLIFF_READS_PER_ROW} device reads per row or more: the run "
            "did not pass its cliff, nothing to bound.",
        )
    return RuleVerdict(
        "physics_reads_per_row",
        Status.PASS,
        f"In the {past} intervals past the cliff, rate x reads per row fit "
        f"{_n(drives)} {entry.setup.drive_kind} drive(s)' random reads ({DOC}).",
    )


def check_rate_per_cpu(entry: Entry, rules: RuleSet) -> RuleVerdict:
    cpus, where = logical_cpus(entry)
    ceiling = ROWS_PER_CPU_CEILING * cpus
    judged = 0
    for piece in interval_pieces(entry.log):
        rates = piece.column(entry.log, "interval_rate")
        with np.errstate(invalid="ignore"):
            over = np.flatnonzero(piece.judged & (rates > ceiling))
        if len(over):
            interval = piece.interval(entry.log, int(over[0]))
            rate = float(rates[over[0]])
            return RuleVerdict(
                "physics_rate_per_cpu",
                Status.FAIL,
                f"line {interval.line:,}: {_n(round(rate))} rows/s from {cpus} logical CPUs "
                f"({where}); the bundled benchmark storing nothing (BLACKHOLE) makes "
                f"{_n(BLACKHOLE_ROWS_PER_CPU)} rows/s per CPU, {_n(ceiling)} with a "
                f"{RATE_MARGIN}x margin for faster CPUs ({DOC}).",
                interval.line,
                f"{rate:.0f} rows/s",
                f"{ceiling} rows/s",
            )
        judged += int(np.count_nonzero(piece.judged))
    if not judged:
        return _not_stated("physics_rate_per_cpu", "the log has no interval to judge.")
    return RuleVerdict(
        "physics_rate_per_cpu",
        Status.PASS,
        f"Every interval's rate is within {_n(ceiling)} rows/s: {cpus} logical CPUs ({where}) "
        f"x {_n(ROWS_PER_CPU_CEILING)} ({DOC}).",
    )


def _stated_int(log: ParsedLog, key: str, default: int | None) -> int | None:
    stated = log.parameters.get(key)
    if stated is None:
        return default
    try:
        return int(stated.value)
    except (TypeError, ValueError):
        return default


def check_latency_carries(entry: Entry, rules: RuleSet) -> RuleVerdict:
    """At least half an interval's INSERTs took p50 or more, and each writer runs its INSERTs
    one after another: (statements / 2) x p50 <= writers x (seconds + the slowest INSERT)."""
    log = entry.log
    per_insert = _stated_int(log, "rows_per_insert", None)
    writers = _stated_int(log, "writers", 1) or 1
    if not (_has(log, "latency_p50_ms") and _has(log, "latency_max_ms")) or not per_insert:
        return _not_stated(
            "physics_latency", "the log has no INSERT latency or rows per INSERT to judge by."
        )
    judged = 0
    for piece in interval_pieces(log):
        median = piece.column(log, "latency_p50_ms")
        longest = piece.column(log, "latency_max_ms")
        with np.errstate(invalid="ignore"):
            seen = piece.judged & ~np.isnan(median) & ~np.isnan(longest) & (median > 0)
            statements = np.ceil(piece.rows / per_insert)
            busy = np.ceil(statements / 2) * median / 1000
            room = writers * (piece.seconds + longest / 1000) * (1 + LATENCY_TOLERANCE)
            over = np.flatnonzero(seen & (busy > room))
        if len(over):
            at = int(over[0])
            interval = piece.interval(log, at)
            carried = 2 * per_insert * writers / (median[at] / 1000)
            return RuleVerdict(
                "physics_latency",
                Status.FAIL,
                f"line {interval.line:,}: {_n(round(interval.rows))} rows in "
                f"{_n(round(interval.seconds, 3))} s with {_n(per_insert)} rows per INSERT at "
                f"p50 {_n(round(float(median[at]), 3))} ms on {writers} writer(s): half its "
                f"{_n(int(statements[at]))} INSERTs alone take {_n(round(float(busy[at]), 3))} s; "
                f"that latency carries at most about {_n(round(float(carried)))} rows/s.",
                interval.line,
                f"{busy[at]:.3f} s",
                f"{room[at]:.3f} s",
            )
        judged += int(np.count_nonzero(seen))
    if not judged:
        return _not_stated("physics_latency", "no interval of the log measured its latency.")
    return RuleVerdict(
        "physics_latency",
        Status.PASS,
        f"Every interval's rows fit its INSERT latency on {writers} writer(s).",
    )


def _with_series(rule_id: str, check: Callable[[Entry, RuleSet], RuleVerdict]):
    """The check, or "not stated" for an entry without report lines (declared figures, a
    bulk load's summary): there is no interval to judge."""

    def judged(entry: Entry, rules: RuleSet) -> RuleVerdict:
        if entry.log is None or not len(entry.log.series):
            return _not_stated(rule_id, "the log has no report lines.")
        return check(entry, rules)

    return judged


PHYSICS_RULES: tuple[Rule, ...] = (
    Rule(
        "physics_cpu",
        "Physics: no interval uses more CPU seconds (machine, server, client) than the logical "
        f"CPUs x its seconds (+{CPU_TOLERANCE:.0%}). Physics rules catch careless fakes, not "
        "careful ones.",
        _with_series("physics_cpu", check_cpu),
    ),
    Rule(
        "physics_device_ops",
        f"Physics: device reads and writes per second within the declared drives ({DOC}).",
        _with_series("physics_device_ops", check_device_ops),
    ),
    Rule(
        "physics_device_bytes",
        f"Physics: bytes read and written per second within the declared drives ({DOC}).",
        _with_series("physics_device_bytes", check_device_bytes),
    ),
    Rule(
        "physics_reads_per_row",
        "Physics: past the cliff, rate x device reads per row within the declared drives' "
        f"random reads ({DOC}).",
        _with_series("physics_reads_per_row", check_reads_past_cliff),
    ),
    Rule(
        "physics_rate_per_cpu",
        f"Physics: no interval faster than {_n(ROWS_PER_CPU_CEILING)} rows/s per logical CPU "
        f"(the bundled benchmark on BLACKHOLE, with a {RATE_MARGIN}x margin; {DOC}).",
        _with_series("physics_rate_per_cpu", check_rate_per_cpu),
    ),
    Rule(
        "physics_latency",
        "Physics: no interval inserts more rows than its own INSERT latency and writer count "
        "can carry.",
        _with_series("physics_latency", check_latency_carries),
    ),
)
