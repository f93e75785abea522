"""Seed 003's loads: 100M rows, TokuDB v3 and v4, per keys and row length (docs/seeds/003)."""

from __future__ import annotations

from ..published import LOADING_POST, PublishedResult

LOAD_NODE = "AWS c1.large node (8 cores, 7 GB); data file and database each on a 2-disk RAID 0"
LOAD_ROWS = 100_000_000
# keys, row length, v3 rows/s, v4 rows/s, v4 key-value pairs/s, v4 MB/s, as published.
LOAD_TABLE = (
    (1, 64, 27_000, 142_000, 142_000, 9.1),
    (4, 64, 13_000, 82_000, 330_000, 5.3),
    (1, 256, 7_000, 54_000, 54_000, 13.9),
    (4, 256, 5_000, 43_000, 173_000, 11.1),
)


def _load(keys: int, row_length: int, rows_per_s: float, kv: float, mb: float) -> dict:
    return {
        "keys": keys,
        "row_length": row_length,
        "rows": LOAD_ROWS,
        "rows_per_s": float(rows_per_s),
        "kv_pairs_per_s": float(kv),
        "mb_per_s": float(mb),
        "seconds": LOAD_ROWS / rows_per_s,
    }


REFERENCES: tuple[PublishedResult, ...] = tuple(
    PublishedResult(
        label=f"TokuDB v{version}, keys={keys}, row length={length}",
        storage_engine="TokuDB",
        hardware=LOAD_NODE,
        drive_kind="hdd",
        rows=LOAD_ROWS,
        elapsed_seconds=LOAD_ROWS / rate,
        estimated=False,
        terminal_rate=None,
        average_rate=float(rate),
        size_gib=None,
        source=LOADING_POST,
        note=note,
        track_figures=_load(keys, length, rate, kv, mb),
    )
    for keys, length, v3, v4, v4_kv, v4_mb in LOAD_TABLE
    for version, rate, kv, mb, note in (
        (
            3,
            v3,
            v3 * keys,
            v3 * length / 1e6,
            "LOAD DATA INFILE of 100M unsorted rows; rows/s as published, KV pairs/s and "
            "MB/s derived from it (rows/s x keys, rows/s x row length).",
        ),
        (4, v4, v4_kv, v4_mb, "LOAD DATA INFILE of 100M unsorted rows; figures as published."),
    )
)
