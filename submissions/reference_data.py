"""The results the seeds published, as plain data (see docs/IIBENCH.md and docs/seeds/).

They are shown on a leaderboard for comparison and never ranked: nobody submitted their logs.
`services.reference_results_create` stores them for a contest of the matching workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DAY = 86_400.0
BILLION = 1_000_000_000

# Sun Fire x4150: 2 sockets, quad-core Xeon X5460 3.16 GHz; CentOS 5.1, MySQL 5.1.25-rc.
SUN_X4150 = "Sun Fire x4150, 2x Xeon X5460, 8 cores, 16 GB, 8x 146 GB SAS 10k rpm"
RAID5_ON_6 = f"{SUN_X4150}, RAID 5 on 6"
RAID0_ON_6 = f"{SUN_X4150}, RAID 0 on 6"

CONTEST_DECK = "Tokutek iiBench contest deck, 24 Nov 2008 (seeds/000)"
PERFORMANCE_BRIEF = "TokuDB performance brief (seeds/001)"
DELETES_POST = "Tokutek blog, iiBench with deletes (seeds/002)"
LOADING_POST = "Tokutek blog, Loading Tables with TokuDB 4.0, Sep 2010 (seeds/003)"
RECOVERY_POSTS = "Tokutek blog, Recovery Time for TokuDB and Recovery Times - Part Deux (seeds/003)"
PK_WRITE_UP = "MysqlBenchmark write-up, primary-key types, Mar 2016 (seeds/004)"

QUERY_LAB = (
    "Intel Dual Core Q6600 2.4 GHz (as the brief says), 8 GB, 2 SAS disks RAID 10, "
    "Windows XP x64 SP2, 32-bit MySQL"
)
LOAD_NODE = "AWS c1.large node (8 cores, 7 GB); data file and database each on a 2-disk RAID 0"
RECOVERY_SERVER = (
    "Sun Fire x4150, 2x quad-core Xeon 3.1 GHz, 16 GiB, 6x 146 GB SAS RAID 0 (write caches "
    "off), CentOS 5.1, ext3"
)


@dataclass(frozen=True)
class PublishedResult:
    workload: str  # Workload value of the contests it belongs to
    label: str
    storage_engine: str
    hardware: str
    drive_kind: str
    rows: int
    elapsed_seconds: float | None
    estimated: bool
    terminal_rate: float | None
    average_rate: float | None
    size_gib: float | None
    source: str
    note: str = ""
    # The track's figures, with the same keys as Submission.track_figures (tracks/*.py).
    track_figures: Mapping = field(default_factory=dict)


def _fifo(rows: int, terminal_rate: float) -> dict:
    return {
        "delete_after": 250_000_000,
        "deletes_start_row": 250_000_000,
        "terminal_insert_rate": float(terminal_rate),
        "terminal_window_rows": 10_000_000,
        "rows": rows,
        "deleted": rows - 250_000_000,
    }


# --- query scalability (seeds/001): the query's time as the table grows -----------------

QUERY_RESULTS = (
    PublishedResult(
        workload="query",
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
        workload="query",
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


# --- primary-key types (seeds/004): minutes and mean read rate per table ----------------


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

PK_RESULTS = tuple(
    PublishedResult(
        workload="pk_types",
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


# --- bulk loading (seeds/003): 100M rows, TokuDB v3 and v4, per keys and row length ------

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


LOAD_RESULTS = tuple(
    PublishedResult(
        workload="bulk_load",
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


# --- crash recovery (seeds/003): restart time after a power-cord pull at ~250M rows ------

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

RECOVERY_RESULTS = tuple(
    PublishedResult(
        workload="crash_recovery",
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


PUBLISHED_RESULTS: tuple[PublishedResult, ...] = (
    PublishedResult(
        workload="classic",
        label="Tokutek InnoDB (2008 contest)",
        storage_engine="InnoDB",
        hardware=RAID5_ON_6,
        drive_kind="hdd",
        rows=BILLION,
        elapsed_seconds=19.6 * DAY,
        estimated=False,
        terminal_rate=404,
        average_rate=BILLION / (19.6 * DAY),
        size_gib=166,
        source=CONTEST_DECK,
        note="Elapsed 19.6 days, terminal rate 404 rows/s, 166 GiB.",
    ),
    PublishedResult(
        workload="classic",
        label="Tokutek MyISAM (2008 contest)",
        storage_engine="MyISAM",
        hardware=RAID5_ON_6,
        drive_kind="hdd",
        rows=BILLION,
        elapsed_seconds=121 * DAY,
        estimated=True,
        terminal_rate=93,
        average_rate=None,
        size_gib=None,
        source=CONTEST_DECK,
        note="Not finished: 121 days estimated; 93 rows/s is the rate when it was stopped.",
    ),
    PublishedResult(
        workload="classic",
        label="Tokutek InnoDB (2009 briefs, RAID 0)",
        storage_engine="InnoDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=BILLION,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=876,
        average_rate=None,
        size_gib=None,
        source=f"{PERFORMANCE_BRIEF}; {DELETES_POST}",
        note="Terminal rate over the last 10M rows at 1B rows; elapsed time not published.",
    ),
    PublishedResult(
        workload="classic",
        label="Tokutek TokuDB (performance brief, RAID 0)",
        storage_engine="TokuDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=BILLION,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=15_853,
        average_rate=None,
        size_gib=None,
        source=PERFORMANCE_BRIEF,
        note="Terminal rate over the last 10M rows at 1B rows (18x InnoDB); elapsed time not published.",
    ),
    PublishedResult(
        workload="classic",
        label="Tokutek TokuDB (iiBench with deletes post, RAID 0)",
        storage_engine="TokuDB",
        hardware=RAID0_ON_6,
        drive_kind="hdd",
        rows=BILLION,
        elapsed_seconds=None,
        estimated=False,
        terminal_rate=11_220,
        average_rate=None,
        size_gib=None,
        source=DELETES_POST,
        note="Rate after the 1B insertion point (12.8x InnoDB); elapsed time not published.",
    ),
    PublishedResult(
        workload="fifo",
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
        workload="fifo",
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
        workload="fifo",
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
    *QUERY_RESULTS,
    *PK_RESULTS,
    *LOAD_RESULTS,
    *RECOVERY_RESULTS,
)


def published_results_for(workload: str) -> list[PublishedResult]:
    return [result for result in PUBLISHED_RESULTS if result.workload == workload]
