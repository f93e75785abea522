"""Seed 001's query times as the table grows (docs/seeds/001)."""

from __future__ import annotations

from ..published import PERFORMANCE_BRIEF, PublishedResult

QUERY_LAB = (
    "Intel Dual Core Q6600 2.4 GHz (as the brief says), 8 GB, 2 SAS disks RAID 10, "
    "Windows XP x64 SP2, 32-bit MySQL"
)

REFERENCES: tuple[PublishedResult, ...] = (
    PublishedResult(
        label="Customer lab test: TokuDB",
        storage_engine="TokuDB",
        hardware=QUERY_LAB,
        drive_kind="hdd",
        rows=202_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=None,
        average_rate=None,
        size_gib=None,
        source=PERFORMANCE_BRIEF,
        note="The query ran in 7.2 s at 125M rows and 11.3 s at 202M rows.",
        track_figures={"points": [[125_000_000, 7.2], [202_000_000, 11.3]], "source": "declared"},
    ),
    PublishedResult(
        label="Customer lab test: MyISAM",
        storage_engine="MyISAM",
        hardware=QUERY_LAB,
        drive_kind="hdd",
        rows=132_000_000,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=None,
        average_rate=None,
        size_gib=None,
        source=PERFORMANCE_BRIEF,
        note="17.7 s at 125M rows, then a cliff: 406 s at 132M rows.",
        track_figures={"points": [[125_000_000, 17.7], [132_000_000, 406.0]], "source": "declared"},
    ),
)
