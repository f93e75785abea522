"""Seed 003's recovery times after a power-cord pull at ~250M rows (docs/seeds/003)."""

from __future__ import annotations

from ..published import RECOVERY_POSTS, PublishedResult

RECOVERY_SERVER = (
    "Sun Fire x4150, 2x quad-core Xeon 3.1 GHz, 16 GiB, 6x 146 GB SAS RAID 0 (write caches "
    "off), CentOS 5.1, ext3"
)

RECOVERY_TABLE = (
    ("TokuDB at 200 rows/s", "TokuDB", 200, 2, "Part Deux: throttled iiBench."),
    ("TokuDB at 2,000 rows/s", "TokuDB", 2_000, 13, "Part Deux: throttled iiBench."),
    (
        "TokuDB flat out (16,000 rows/s)",
        "TokuDB",
        16_000,
        501,
        "First post: inserting at full speed, more than 16,000 rows/s.",
    ),
    (
        "Stock InnoDB at 200 rows/s",
        "InnoDB",
        200,
        18_505,
        "First post: InnoDB at full speed inserted fewer than 200 rows/s; 5 h 8 min 25 s.",
    ),
    (
        "Patched InnoDB at 200 rows/s",
        "InnoDB (patched)",
        200,
        1_020,
        "InnoDB with Wikimedia's recovery patch, suggested in the comments.",
    ),
)

REFERENCES: tuple[PublishedResult, ...] = tuple(
    PublishedResult(
        label=label,
        storage_engine=engine,
        hardware=RECOVERY_SERVER,
        drive_kind="hdd",
        rows=250_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=None,
        average_rate=None,
        size_gib=None,
        source=RECOVERY_POSTS,
        note=note + " mysqld takes 1 s to start without recovery.",
        track_figures={
            "insert_rate": float(rate),
            "rows_at_crash": 250_000_000,
            "recovery_seconds": float(seconds),
            "engine": engine,
        },
    )
    for label, engine, rate, seconds, note in RECOVERY_TABLE
)
