"""Track contests and their entries as the track tests make them: a FIFO contest, an entry
submitted to it, and the declared figures of key-type and crash-recovery entries."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from submissions.entries import services
from submissions.models import Workload
from testing.entries import DECLARED
from testing.factories import ContestFactory, UserFactory

OPEN = {
    "required_mysql_version": "",
    "preferred_os": "",
    "max_memory_gb": None,
    "require_direct_attached": False,
}


def fifo_contest(**fields):
    return ContestFactory(
        workload=Workload.FIFO,
        target_rows=500_000,
        report_every_rows=5_000,
        terminal_window_rows=10_000,
        track_rules={"delete_after": 250_000, "pace_tolerance": 0.01},
        **OPEN,
        **fields,
    )


def submit(contest, log: bytes | None, name="Ada", **declared):
    upload = SimpleUploadedFile("run.log", log) if log is not None else None
    return services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "entrant_name": name, **declared},
        log_file=upload,
    )


def pk_figures(ratio: float) -> dict:
    run = {"minutes": 10.0, "rows": 100_000, "write_rate": 166.7, "read_rate": 50.0}
    return {
        "runs": {
            "autoinc": run,
            "uuid-char": {**run, "minutes": 15.0},
            "uuid-ordered": {**run, "minutes": 10.0 * ratio},
        },
        "ratios": {"uuid-char": 1.5, "uuid-ordered": ratio},
    }


def crash(rate: float, seconds: float) -> dict:
    return {
        "insert_rate": rate,
        "rows_at_crash": 250_000,
        "recovery_seconds": seconds,
        "engine": "InnoDB",
    }
