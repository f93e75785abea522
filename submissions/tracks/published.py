"""The results the seeds published, as plain data (see docs/IIBENCH.md and docs/seeds/): each
track keeps its own (`Track.references`, in its package's references.py).

They are shown on a leaderboard for comparison and never ranked: nobody submitted their logs.
`reference_rows.reference_results_create` stores a track's for a contest of that track. Pure.
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


@dataclass(frozen=True)
class PublishedResult:
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
    # The track's figures, with the same keys as Submission.track_figures.
    track_figures: Mapping = field(default_factory=dict)
