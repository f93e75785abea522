"""The memory a verification's server may use in all, for an engine whose data lives in the
operating system's page cache too: its RAM scaled 1/k. Pure.

PostgreSQL, and MariaDB's MyISAM and Aria (RAM_RULES; docs/scaling.md "MyISAM and Aria"). The
reasoning and the figures below are PostgreSQL's, where it was first measured.

PostgreSQL keeps its data in `shared_buffers` and, beyond them, in the operating system's page
cache: on a host with memory to spare the page cache holds the whole table, and no
`shared_buffers` makes a cliff (docs/scaling.md). So a rerun scales both: `shared_buffers` 1/k
(scaling.py) and the page cache, by running the private server in a memory cgroup whose limit
is the claim's RAM scaled 1/k (runner/cgroups.py): the kernel charges the pages the server
reads and writes to its cgroup, and past the limit evicts them, as a host of that RAM would.

The rule: the RAM above a headroom for the server's own processes (what a host of any RAM
holds alike) divided by k, not below a floor:

    limit_k = HEADROOM + max(FLOOR, (ram - HEADROOM) / k)

HEADROOM, 21 MB, is the fixed part the claim checked at 1/10 pins (as for InnoDB's pool,
scaling.py): a 2,200,000-row claim in a 280 MB cgroup fell off its cliff at 1,848,000 rows and
its reruns in 49.6 MB (a 24 MB headroom) at 202,400-206,800, 10-12% late, which a fixed part of
21 MB makes a tenth. The sweeps of bench/pg_scaling.py (docs/scaling.md "PostgreSQL") agree
within a few MB: the line through the limits whose cliff repeated, 48 MB (four runs) and
192 MB (two), has 24 MB, the first sweep's 23 MB. It is more than the server's processes hold
besides the data (memory.stat: rss 9-10 MB, shmem 6 MB above shared_buffers). On the loaded
machine identical runs at 96 MB put the cliff anywhere from 228,000 rows to past 672,000: the
rule is a first measurement, not a settled one: those cliffs were the rate's steepest fall,
which for PostgreSQL picks one of the steps its rate falls in before its reads begin. Placed
where the reads begin (the judge's PostgreSQL cliff), a sweep of 48-192 MB (two rounds, 26 Nov
15:53-15:59) repeated within 4% and fitted rows = 5,990 x (MB - 21.9), largest miss 1%: the
headroom stands. Small short runs begin reading somewhat later than that line (reruns at 1/2
8.7% of their run after their claims, on average): the judge's band holds it. FLOOR keeps the
cgroup where initdb and the
server run (40 MB in all: initdb was killed in 32 MB, ran in 36 and 40 MB). The claim's RAM
is the entry's declared memory (memory_gb).
"""

from __future__ import annotations

from dataclasses import dataclass

from submissions.setup.server_settings import MYSQL, POSTGRESQL

MIB = 1 << 20

# The measured fixed part: what a host of any RAM holds besides the index pages.
HEADROOM = 21 * MIB
# The least RAM scaled 1/k (above the headroom) a rerun gets: initdb and the server need it.
FLOOR = 19 * MIB


@dataclass(frozen=True)
class RamRule:
    """How the declared RAM of a server whose data lives in the page cache is scaled: the
    fixed part a host of any RAM holds (not divided by k) and the least above it a rerun gets."""

    headroom: int  # bytes
    floor: int  # bytes above the headroom
    bounds: str  # what the limit bounds together, for the note
    server: str  # the server's own processes, for the note


POSTGRESQL_RAM = RamRule(
    HEADROOM, FLOOR, "shared_buffers and the page cache", "server's own processes"
)
# MyISAM keeps index blocks in its key cache (key_buffer_size) and its files in the page cache:
# with the page cache unbounded no key buffer of 1 to 16 MB gave a cliff (600,000 rows); in a
# memory cgroup the cliff came where the cgroup's memory less the key buffer said, rows =
# 13,858 x (limit - key buffer - 52.8 MB), largest miss 2% at 64-80 MB with a 4 MB key buffer
# and 7% with 1 and 16 MB in 80 MB: the key cache takes its room from the page cache (it holds
# copies of the index file's blocks), so a bigger key buffer brings the cliff earlier
# (docs/scaling.md "MyISAM and Aria", 26 Nov 2026). Its headroom excludes the key buffer, which
# is scaled 1/k with the RAM (scaling.py), so the memory left to the page cache is scaled 1/k:
# limit_k - key_k - 53 MB = (RAM - key - 53 MB) / k. mariadbd held 51 MB once started (its
# InnoDB pool 8 MB). The floor: the smallest limit measured, 64 MB in all.
MYISAM_RAM = RamRule(53 * MIB, 11 * MIB, "key_buffer_size and the page cache", "server (mariadbd)")
# Aria keeps its pages in aria_pagecache_buffer_size and its files in the page cache too: in a
# memory cgroup its cliff came where the cgroup's memory less the page cache buffer said, by
# where device reads began rows = 11,118 x (limit - buffer - 69.8 MB), largest miss 3% over
# limits of 84 to 112 MB (4 MB buffer, each limit twice, every cliff repeated within 2 points
# of the run), and with 1 and 16 MB buffers in 112 MB 1% and 6 points (docs/scaling.md "MyISAM
# and Aria", 26 Nov 2026 22:02-22:16): as MyISAM's key cache, the buffer takes its room from
# the page cache and is scaled 1/k with the RAM. mariadbd held 68 MB once started (its InnoDB
# pool 8 MB) and was killed by the kernel in 64 and 72 MB; the floor: the smallest limit
# measured, 84 MB in all.
ARIA_RAM = RamRule(
    70 * MIB, 14 * MIB, "aria_pagecache_buffer_size and the page cache", "server (mariadbd)"
)
# (family, lower-case engine; "" any) -> its rule. An engine not here keeps its data in a
# pool of its own (InnoDB, MyRocks' block cache): the cgroup is then only a ceiling.
RAM_RULES = {
    (POSTGRESQL, ""): POSTGRESQL_RAM,
    (MYSQL, "myisam"): MYISAM_RAM,
    (MYSQL, "aria"): ARIA_RAM,
}


def ram_rule(family: str, engine: str = "") -> RamRule | None:
    """The rule of a server family and storage engine whose data lives in the page cache;
    None for one that keeps it in a pool of its own."""
    return RAM_RULES.get((family, "")) or RAM_RULES.get((family, (engine or "").strip().lower()))


@dataclass(frozen=True)
class ScaledRam:
    limit: int  # bytes: the server's cgroup limit
    note: str  # how it was found, for the log and the verdict


def scaled_ram(ram: int, scale: int, rule: RamRule = POSTGRESQL_RAM) -> int:
    """The memory limit whose cliff comes at 1/`scale` of `ram`'s rows, not below the floor."""
    if scale <= 1:
        return ram
    return rule.headroom + max(rule.floor, round((ram - rule.headroom) / scale))


def max_ram_scale(ram: int, rule: RamRule = POSTGRESQL_RAM) -> int:
    """The largest k that keeps `ram` scaled 1/k at or above the floor."""
    above = ram - rule.headroom
    return max(1, above // rule.floor)


def server_memory_limit(
    memory_gb: float, scale: int, *, family: str, engine: str = ""
) -> ScaledRam | None:
    """The cgroup limit of a rerun at 1/`scale` of an entry that declared `memory_gb` of RAM,
    on a server and engine whose data lives in the page cache; None when it declared none
    (nothing to scale) or its engine keeps its data in a pool of its own."""
    rule = ram_rule(family, engine)
    if memory_gb <= 0 or rule is None:
        return None
    ram = int(memory_gb * (1 << 30))
    limit = scaled_ram(ram, scale, rule)
    shown = f"{limit / MIB:,.0f} MB"
    declared = f"{memory_gb:g} GB" if memory_gb >= 1 else f"{ram / MIB:,.0f} MB"
    if scale <= 1:
        return ScaledRam(limit, f"memory limit {shown}: the declared {declared} RAM")
    head, floor = rule.headroom // MIB, rule.floor // MIB
    floored = (
        " (its floor)"
        if limit == rule.headroom + rule.floor and ram - rule.headroom < rule.floor * scale
        else ""
    )
    return ScaledRam(
        limit,
        f"memory limit {shown}{floored}: the declared {declared} RAM scaled 1/{scale} "
        f"above {head} MB for the {rule.server} ({head} MB + ({declared} - {head} MB) / "
        f"{scale}, not below {head} MB + {floor} MB); it bounds {rule.bounds} together",
    )
