"""The benchmark's argument list, built from the contest's rules and the rerun's size. Pure."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunPlan:
    binary: str
    db_url: str
    rows: int
    rows_per_commit: int
    rows_per_insert: int
    seed: int
    engine: str | None = None
    # The seeds' other workloads (README "Other workloads"); None/0 leaves the C default.
    report_every: int | None = None
    delete_after: int = 0
    query_threads: int = 0
    pk: str | None = None
    writers: int = 1
    readers: int = 0
    reader_pause_ms: int | None = None
    max_rate: int = 0


def report_every(rows: int) -> int:
    """Often enough for a live curve (about 100 points) without flooding the database."""
    return max(1_000, rows // 100)


def benchmark_arguments(plan: RunPlan) -> list[str]:
    arguments = [
        plan.binary,
        "--db",
        plan.db_url,
        "--rows",
        str(plan.rows),
        "--rows-per-commit",
        str(plan.rows_per_commit),
        "--rows-per-insert",
        str(min(plan.rows_per_insert, plan.rows_per_commit)),
        "--report-every",
        str(plan.report_every or report_every(plan.rows)),
        "--seed",
        str(plan.seed),
    ]
    if plan.engine:
        arguments += ["--engine", plan.engine]
    return arguments + _workload_arguments(plan)


def _workload_arguments(plan: RunPlan) -> list[str]:
    # Only what differs from the C defaults, so a classic rerun's command line stays the
    # classic one.
    optional = [
        ("--delete-after", plan.delete_after, plan.delete_after > 0),
        ("--query-threads", plan.query_threads, plan.query_threads > 0),
        ("--pk", plan.pk, plan.pk is not None),
        ("--writers", plan.writers, plan.writers != 1),
        ("--readers", plan.readers, plan.readers > 0),
        ("--reader-pause-ms", plan.reader_pause_ms, plan.reader_pause_ms is not None),
        ("--max-rate", plan.max_rate, plan.max_rate > 0),
    ]
    return [text for flag, value, wanted in optional if wanted for text in (flag, str(value))]


@dataclass(frozen=True)
class LoadPlan:
    """`iibench load`: seed 003's bulk load of generated rows with the keys in place."""

    binary: str
    db_url: str
    keys: int
    row_length: int
    rows: int
    seed: int
    out_dir: str
    engine: str | None = None


def load_arguments(plan: LoadPlan) -> list[str]:
    # --out keeps the generated file in the rerun's own folder: `load` does not catch
    # signals, so a cancelled load would leave a temporary directory behind; ours is removed.
    arguments = [
        plan.binary,
        "load",
        "--db",
        plan.db_url,
        "--keys",
        str(plan.keys),
        "--row-length",
        str(plan.row_length),
        "--rows",
        str(plan.rows),
        "--seed",
        str(plan.seed),
        "--out",
        plan.out_dir,
    ]
    if plan.engine:
        arguments += ["--engine", plan.engine]
    return arguments


def engine_for(declared_engine: str, supported: list[str]) -> str | None:
    """The entry's storage engine when the target has it (InnoDB, MyISAM...), else the
    target's default."""
    wanted = declared_engine.strip().lower()
    return next((engine for engine in supported if engine.lower() == wanted), None)
