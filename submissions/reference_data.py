"""The results the seeds published, as plain data (see /work/shared/IIBENCH.md and seeds/).

They are shown on a leaderboard for comparison and never ranked: nobody submitted their logs.
`services.reference_results_create` stores them for a contest of the matching workload.
"""

from __future__ import annotations

from dataclasses import dataclass

DAY = 86_400.0
BILLION = 1_000_000_000

# Sun Fire x4150: 2 sockets, quad-core Xeon X5460 3.16 GHz; CentOS 5.1, MySQL 5.1.25-rc.
SUN_X4150 = "Sun Fire x4150, 2x Xeon X5460, 8 cores, 16 GB, 8x 146 GB SAS 10k rpm"
RAID5_ON_6 = f"{SUN_X4150}, RAID 5 on 6"
RAID0_ON_6 = f"{SUN_X4150}, RAID 0 on 6"

CONTEST_DECK = "Tokutek iiBench contest deck, 24 Nov 2008 (seeds/000)"
PERFORMANCE_BRIEF = "TokuDB performance brief (seeds/001)"
DELETES_POST = "Tokutek blog, iiBench with deletes (seeds/002)"


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
    ),
)


def published_results_for(workload: str) -> list[PublishedResult]:
    return [result for result in PUBLISHED_RESULTS if result.workload == workload]
