"""Seed 004's minutes and mean read rate per table (docs/seeds/004)."""

from __future__ import annotations

from ..published import PK_WRITE_UP, PublishedResult


def _pk_run(rows: int, minutes: float, reads_per_s: float) -> dict:
    return {
        "minutes": minutes,
        "rows": rows,
        "write_rate": rows / (minutes * 60),
        "read_rate": reads_per_s,
    }


def _pk(rows: int, baseline: tuple, uuid_char: tuple, uuid_ordered: tuple) -> dict:
    runs = {
        "autoinc": _pk_run(rows, *baseline),
        "uuid-char": _pk_run(rows, *uuid_char),
        "uuid-ordered": _pk_run(rows, *uuid_ordered),
    }
    return {
        "runs": runs,
        "ratios": {
            kind: runs[kind]["minutes"] / runs["autoinc"]["minutes"]
            for kind in ("uuid-char", "uuid-ordered")
        },
    }


PK_TESTS = (
    ("test 1", "500k rows, batches of 1k", 500_000,
     (9.718, 75.99), (14.52, 30.89), (6.671, 68.00)),
    ("test 2", "500k rows, batches of 10k", 500_000,
     (8.059, 107.13), (13.38, 42.21), (11.96, 112.78)),
    ("test 3", "100k rows, batches of 1k", 100_000,
     (2.206, 219.41), (2.225, 143.61), (1.546, 208.22)),
    ("test 4", "100k rows, batches of 1k, again", 100_000,
     (2.272, 213.53), (2.285, 142.88), (1.603, 205.52)),
)  # fmt: skip

REFERENCES: tuple[PublishedResult, ...] = tuple(
    PublishedResult(
        label=f"Seed 004 {name} ({what})",
        storage_engine="InnoDB",
        hardware="not stated by the write-up",
        drive_kind="",
        rows=rows,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=None,
        average_rate=None,
        size_gib=None,
        source=PK_WRITE_UP,
        note=(
            "10 writers, 100 readers. Minutes per table from 'NAME took'; read rate: the "
            "readers' mean scans/s."
        ),
        track_figures=_pk(rows, baseline, uuid_char, uuid_ordered),
    )
    for name, what, rows, baseline, uuid_char, uuid_ordered in PK_TESTS
)
