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
        str(report_every(plan.rows)),
        "--seed",
        str(plan.seed),
    ]
    if plan.engine:
        arguments += ["--engine", plan.engine]
    return arguments


def engine_for(declared_engine: str, supported: list[str]) -> str | None:
    """The entry's storage engine when the target has it (InnoDB, MyISAM...), else the
    target's default."""
    wanted = declared_engine.strip().lower()
    return next((engine for engine in supported if engine.lower() == wanted), None)
