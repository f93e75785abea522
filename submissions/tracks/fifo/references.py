"""Seed 002's FIFO runs, and the performance brief's terminal rate (docs/seeds/001, 002)."""

from __future__ import annotations

from ..published import (
    DELETES_POST,
    PERFORMANCE_BRIEF,
    RAID0_ON_6,
    PublishedResult,
)


def _fifo(rows: int, terminal_rate: float) -> dict:
    return {
        "delete_after": 250_000_000,
        "deletes_start_row": 250_000_000,
        "terminal_insert_rate": float(terminal_rate),
        "terminal_window_rows": 10_000_000,
        "rows": rows,
        "deleted": rows - 250_000_000,
    }


REFERENCES: tuple[PublishedResult, ...] = (
    PublishedResult(
        label="Tokutek InnoDB (FIFO deletes, at 387M rows)",
        storage_engine="InnoDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=387_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=204,
        average_rate=None,
        size_gib=None,
        source=DELETES_POST,
        note="Insertions/s over the most recent 10M rows; the run had not reached 500M rows.",
        track_figures=_fifo(387_000_000, 204),
    ),
    PublishedResult(
        label="Tokutek TokuDB (FIFO deletes, post)",
        storage_engine="TokuDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=500_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=5_088,
        average_rate=None,
        size_gib=None,
        source=DELETES_POST,
        note="Insertions/s over the last 10M of 500M rows inserted.",
        track_figures=_fifo(500_000_000, 5_088),
    ),
    PublishedResult(
        label="Tokutek TokuDB (FIFO deletes, performance brief)",
        storage_engine="TokuDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=500_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=7_109,
        average_rate=None,
        size_gib=None,
        source=PERFORMANCE_BRIEF,
        note="Terminal insertion rate; elapsed time not published.",
        track_figures=_fifo(500_000_000, 7_109),
    ),
)
