"""What a rerun runs for each contest workload: its steps (argument lists for the C benchmark,
never a shell) from the contest's rules, the entry's track figures and the rows the organizer
asked for. Pure: plain data in, plain data out."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from runner.arguments import LoadPlan, RunPlan, benchmark_arguments, load_arguments, report_every

CLASSIC = "classic"
FIFO = "fifo"
QUERY = "query"
PK_TYPES = "pk_types"
BULK_LOAD = "bulk_load"
CRASH_RECOVERY = "crash_recovery"

# Seed 004's three tables, in the order it ran them (the first is the ratios' denominator).
KEY_TYPES = ("autoinc", "uuid-char", "uuid-ordered")
KEY_TYPE_NAMES = {
    "autoinc": "auto-increment key",
    "uuid-char": "CHAR(36) random UUID key",
    "uuid-ordered": "BINARY(16) time-ordered UUID key",
}
SEED_004_READER_PAUSE_MS = 100
# When the entry does not say: seed 002's and the contest's terminal window.
DEFAULT_TERMINAL_WINDOW_ROWS = 10_000_000
MAX_LOAD_KEYS = 32


@dataclass(frozen=True)
class TargetOptions:
    """How a target scales the seeds' concurrency down (seed 004 ran 10 writers, 100 readers)."""

    writers: int = 2
    readers: int = 2
    query_threads: int = 1


@dataclass(frozen=True)
class RerunSpec:
    workload: str
    plan: RunPlan  # the classic run at the rerun's rows, against the target
    figures: dict  # the entry's track figures (Submission.track_figures)
    claimed_rows: int  # the rows of the entry's own run
    options: TargetOptions
    scratch_dir: str  # where `load` writes its data file


@dataclass(frozen=True)
class Step:
    name: str  # stored with the run and its samples: "insert", "uuid-char", "load"...
    description: str  # for people: "Step 2 of 3: ..."
    arguments: list[str]
    rows: int


class NotPlannable(ValueError):
    """The entry does not state what this workload's rerun needs (the message says what)."""


# --- steps ----------------------------------------------------------------------------------


def rerun_steps(spec: RerunSpec) -> list[Step]:
    """The benchmark runs of a rerun, in order. Crash recovery is a procedure around a private
    server, not a list of runs: see crash_plan."""
    planners = {
        CLASSIC: _classic_steps,
        FIFO: _fifo_steps,
        QUERY: _query_steps,
        PK_TYPES: _key_type_steps,
        BULK_LOAD: _bulk_load_steps,
    }
    if spec.workload not in planners:
        raise NotPlannable(f"The {spec.workload} workload is not a list of benchmark runs.")
    return planners[spec.workload](spec)


def _classic_steps(spec: RerunSpec) -> list[Step]:
    plan = spec.plan
    return [Step("insert", "the classic run", benchmark_arguments(plan), plan.rows)]


def _fifo_steps(spec: RerunSpec) -> list[Step]:
    scale = fifo_scale(spec.figures, spec.claimed_rows, spec.plan.rows)
    plan = replace(spec.plan, delete_after=scale.delete_after, query_threads=0)
    description = f"inserts with FIFO deletes from row {scale.delete_after:,}"
    return [Step("fifo", description, benchmark_arguments(plan), plan.rows)]


def _query_steps(spec: RerunSpec) -> list[Step]:
    threads = max(1, spec.options.query_threads)
    plan = replace(spec.plan, query_threads=threads)
    description = f"inserts with {threads} query thread{'s' if threads > 1 else ''}"
    return [Step("queries", description, benchmark_arguments(plan), plan.rows)]


def _key_type_steps(spec: RerunSpec) -> list[Step]:
    options = spec.options
    steps = []
    for kind in KEY_TYPES:
        plan = replace(
            spec.plan,
            pk=kind,
            writers=max(1, options.writers),
            readers=max(0, options.readers),
            reader_pause_ms=SEED_004_READER_PAUSE_MS,
        )
        description = (
            f"{KEY_TYPE_NAMES[kind]} (--pk {kind}), {plan.writers} writers, {plan.readers} readers"
        )
        steps.append(Step(kind, description, benchmark_arguments(plan), plan.rows))
    return steps


def _bulk_load_steps(spec: RerunSpec) -> list[Step]:
    keys, row_length = load_class(spec.figures)
    plan = spec.plan
    load = LoadPlan(
        binary=plan.binary,
        db_url=plan.db_url,
        keys=keys,
        row_length=row_length,
        rows=plan.rows,
        seed=plan.seed,
        out_dir=spec.scratch_dir,
        engine=plan.engine,
    )
    description = f"bulk load of {plan.rows:,} rows, {keys} keys, {row_length}-byte rows"
    return [Step("load", description, load_arguments(load), plan.rows)]


# --- FIFO: seed 002 at the rerun's scale ------------------------------------------------------


@dataclass(frozen=True)
class FifoScale:
    """Seed 002's proportions carried to a smaller run: deletes begin at the same fraction of
    the rows, the terminal window is the same fraction of them (at least one report interval)."""

    rows: int
    delete_after: int
    terminal_window_rows: int
    claimed_rows: int
    claimed_delete_after: int
    claimed_window_rows: int

    @property
    def factor(self) -> float:
        return self.claimed_rows / self.rows


def fifo_scale(figures: dict, claimed_rows: int, rows: int) -> FifoScale:
    claimed_start = _row_count(figures, "deletes_start_row") or _row_count(figures, "delete_after")
    if claimed_start <= 0:
        raise NotPlannable("The entry states no row count at which its deletes start.")
    if claimed_rows <= claimed_start:
        raise NotPlannable(
            f"The entry's deletes start at row {claimed_start:,}, but its run stops at "
            f"{claimed_rows:,} rows: it has no FIFO phase to compare."
        )
    interval = report_every(rows)
    if rows < 3 * interval:
        raise NotPlannable(
            f"A FIFO rerun needs at least {3 * interval:,} rows: one report before the deletes "
            "and two after them."
        )
    # Deletes start on a report boundary so the curve shows where they begin.
    start = round(rows * claimed_start / claimed_rows / interval) * interval
    start = min(max(start, interval), rows - 2 * interval)
    claimed_window = _row_count(figures, "terminal_window_rows") or DEFAULT_TERMINAL_WINDOW_ROWS
    claimed_window = min(claimed_window, claimed_rows - claimed_start)
    window = math.ceil(rows * claimed_window / claimed_rows / interval) * interval
    window = min(max(window, interval), rows - start)
    return FifoScale(rows, start, window, claimed_rows, claimed_start, claimed_window)


def _row_count(figures: dict, key: str) -> int:
    """A row count the entry states, 0 when it states none."""
    value = figures.get(key)
    if value is None or value == "":
        return 0
    try:
        rows = float(value)
    except (TypeError, ValueError):
        raise NotPlannable(f"The entry's {key} ({value!r}) is not a row count.") from None
    if not math.isfinite(rows) or rows < 0:
        raise NotPlannable(f"The entry's {key} ({value!r}) is not a row count.")
    return int(rows)


# --- bulk loading: seed 003's class ----------------------------------------------------------


def load_class(figures: dict) -> tuple[int, int]:
    """(keys, row length) of the entry's load: the class it ranks in."""
    try:
        keys, row_length = int(figures["keys"]), int(figures["row_length"])
    except (KeyError, TypeError, ValueError):
        raise NotPlannable(
            "The entry states no bulk-load class (keys and row length) to rerun."
        ) from None
    if not 1 <= keys <= MAX_LOAD_KEYS or row_length <= 8 * keys:
        raise NotPlannable(
            f"The entry's load class ({keys} keys, {row_length}-byte rows) is not one the "
            f"benchmark can generate: 1 to {MAX_LOAD_KEYS} keys of 8 bytes and a row longer "
            "than its keys."
        )
    return keys, row_length


# --- crash recovery: seed 003's throttled run, killed at a row count -------------------------


@dataclass(frozen=True)
class CrashPlan:
    max_rate: int  # the entry's insert rate, rows/s
    crash_at_rows: int  # the server is killed once a report shows this many rows
    insert_rows: int  # what the benchmark is asked for: more, so it is inserting when killed
    report_every: int

    @property
    def expected_seconds(self) -> float:
        return self.crash_at_rows / self.max_rate


def crash_plan(figures: dict, rows: int) -> CrashPlan:
    try:
        rate = float(figures["insert_rate"])
    except (KeyError, TypeError, ValueError):
        raise NotPlannable("The entry states no insert rate to crash at.") from None
    if not math.isfinite(rate) or rate < 1:
        raise NotPlannable(f"The entry's insert rate ({rate}) is not a rate to throttle to.")
    return CrashPlan(
        max_rate=round(rate),
        crash_at_rows=rows,
        insert_rows=2 * rows,
        report_every=report_every(rows),
    )


def crash_insert_arguments(plan: RunPlan, crash: CrashPlan) -> list[str]:
    """The throttled run against the private server (plan.db_url is the server's)."""
    throttled = replace(
        plan, rows=crash.insert_rows, report_every=crash.report_every, max_rate=crash.max_rate
    )
    return benchmark_arguments(throttled)


# --- what a rerun needs before it is queued ----------------------------------------------------


def refusal(
    workload: str, figures: dict, claimed_rows: int, rows: int, time_limit: int
) -> str | None:
    """Why a rerun of this entry cannot run, or None: checked when it is started, so the
    organizer reads the reason at once rather than in a failed run."""
    try:
        if workload == FIFO:
            fifo_scale(figures, claimed_rows, rows)
        elif workload == BULK_LOAD:
            load_class(figures)
        elif workload == CRASH_RECOVERY:
            crash = crash_plan(figures, rows)
            if crash.expected_seconds > time_limit:
                return (
                    f"At the entry's {crash.max_rate:,} rows/s, {rows:,} rows take "
                    f"{crash.expected_seconds:,.0f} s, longer than the target's {time_limit:,} s "
                    "time limit: ask for fewer rows."
                )
    except NotPlannable as reason:
        return str(reason)
    return None
