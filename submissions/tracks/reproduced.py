"""The seeds' table, reproduced: the comparisons the briefs published (seed 001: a write-optimised
engine against B-trees, classic insertion 18x, FIFO with deletes 35x, on SSD 7.6x, and a query
during inserts 2.5x), each as a plan a verification host runs at 1/k on private servers
(`reproduce_seeds`, runner/seed_runs.py) and the ratios measured from those runs' logs. Pure:
plain data in, plain data out; the runner starts the servers and the registry stores the rows.

A comparison at 1/k runs rows/k rows with each engine's cache at the seed host's memory/k
(the same share of it for every engine, so none is favoured), never below the smallest cache
the scaling rule measured a curve's shape to follow (runner/judge/scaling.py floors); a
cache held at its floor is said so beside the ratio.

PostgreSQL, MyISAM and Aria keep their data in the operating system's page cache too, which no
setting bounds: on a host with memory to spare their tables never leave memory. Their runs'
servers go in a memory cgroup of the seed host's memory scaled 1/k by the rule a verification
uses (submissions/setup/page_cache.py: a headroom for the server's own processes, the rest
divided by k, not below a floor); their cache sits inside it. InnoDB and MyRocks keep theirs in
pools of their own, which the cache setting bounds: they need no cgroup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from submissions.measures.terminal import terminal_window
from submissions.setup.page_cache import ram_rule, server_memory_limit
from submissions.setup.server_settings import MYSQL, POSTGRESQL

MIB = 1 << 20
GIB = 1 << 30
# The write-optimised engine the briefs measured, and today's one here.
WRITE_OPTIMISED = "ROCKSDB"
# Each engine's main cache and the smallest size a rerun gives it (scaling.py's floors).
ENGINE_CACHES = {
    "InnoDB": ("innodb_buffer_pool_size", 8 * MIB),
    "ROCKSDB": ("rocksdb_block_cache_size", 8 * MIB),
    "Aria": ("aria_pagecache_buffer_size", MIB),
    "MyISAM": ("key_buffer_size", MIB),
    "PostgreSQL": ("shared_buffers", MIB),
}
# The share of the host's memory each engine's cache gets: InnoDB's manual advice for a
# dedicated host, given to every engine alike. PostgreSQL, MyISAM and Aria also read through
# the OS page cache, which no setting bounds: their servers run in a memory cgroup (PageCache).
CACHE_SHARE = 0.7
ENGINE_NAMES = {
    "InnoDB": "InnoDB",
    "ROCKSDB": "MyRocks",
    "Aria": "Aria",
    "MyISAM": "MyISAM",
    "PostgreSQL": "PostgreSQL",
}


@dataclass(frozen=True)
class Comparison:
    """One row of the seeds' table: what the brief ran, what it published, how to rerun it."""

    key: str
    title: str
    workload: str  # the track whose contests get the reproduced reference rows
    seed_rows: int  # rows inserted in the brief's run
    memory_bytes: int  # the brief's host memory
    engines: tuple[str, ...]  # run here, the write-optimised one first
    published: dict[str, float]  # the brief's engine -> its figure
    published_ratio: str  # as the brief printed it
    metric: str  # "terminal_rate" (rows/s, higher wins) or "query_seconds" (lower wins)
    baseline: str  # the engine the write-optimised one is compared with, here
    published_baseline: str  # ... and in the brief
    delete_after: int = 0  # FIFO: rows inserted before each insert also deletes
    query_threads: int = 0
    source: str = ""
    note: str = ""


SEED_001 = "TokuDB performance brief (seeds/001)"
COMPARISONS: tuple[Comparison, ...] = (
    Comparison(
        key="classic",
        title="Indexed insertions, 1B rows",
        workload="classic",
        seed_rows=1_000_000_000,
        memory_bytes=16 * GIB,
        engines=("ROCKSDB", "InnoDB", "Aria", "PostgreSQL"),
        published={"InnoDB": 876, "TokuDB": 15_853},
        published_ratio="18x",
        metric="terminal_rate",
        baseline="InnoDB",
        published_baseline="InnoDB",
        source=SEED_001,
        note="Terminal rate over the last 10M of 1B rows, Sun x4150, 16 GB, RAID 0 on 6 disks.",
    ),
    Comparison(
        key="fifo",
        title="Insertions with deletions (FIFO), 250M then 1 delete per insert to 500M",
        workload="fifo",
        seed_rows=500_000_000,
        memory_bytes=16 * GIB,
        engines=("ROCKSDB", "InnoDB"),
        published={"InnoDB": 204, "TokuDB": 7_109},
        published_ratio="35x",
        metric="terminal_rate",
        baseline="InnoDB",
        published_baseline="InnoDB",
        delete_after=250_000_000,
        source=SEED_001,
        note="Terminal rate with the table acting as a FIFO buffer; same host as above.",
    ),
    Comparison(
        key="ssd",
        title="Indexed insertions on SSD, 150M rows, 2 GB of memory",
        workload="classic",
        seed_rows=150_000_000,
        memory_bytes=2 * GIB,
        engines=("ROCKSDB", "InnoDB"),
        published={"InnoDB": 2_287, "TokuDB": 17_382},
        published_ratio="7.6x",
        metric="terminal_rate",
        baseline="InnoDB",
        published_baseline="InnoDB",
        source=SEED_001,
        note="A customer's Dell R900 with an Intel X25-E SSD; here, this host's own drive.",
    ),
    Comparison(
        key="queries",
        title="A query during inserts, 125M rows",
        workload="query",
        seed_rows=125_000_000,
        memory_bytes=8 * GIB,
        engines=("ROCKSDB", "MyISAM"),
        published={"MyISAM": 17.7, "TokuDB": 7.2},
        published_ratio="2.5x",
        metric="query_seconds",
        baseline="MyISAM",
        published_baseline="MyISAM",
        query_threads=1,
        source=SEED_001,
        note="A customer's query time at 125M rows (8 GB, 2 disks RAID 10); here the mean "
        "time of the C benchmark's query thread over the run's last tenth.",
    ),
)
BY_KEY = {comparison.key: comparison for comparison in COMPARISONS}


def ratio_of(comparison: Comparison, figures: dict[str, float | None]) -> float | None:
    """How many times better the write-optimised engine did than the baseline: rates divided
    one way, query times the other. None when either figure is missing or zero."""
    optimised = figures.get(WRITE_OPTIMISED) or figures.get("TokuDB")
    baseline = figures.get(comparison.baseline)
    if not optimised or not baseline:
        return None
    if comparison.metric == "query_seconds":
        return baseline / optimised
    return optimised / baseline


def published_ratio_value(comparison: Comparison) -> float:
    """The brief's own ratio, from its two figures (18.1 for 15,853 / 876)."""
    optimised = comparison.published["TokuDB"]
    baseline = comparison.published[comparison.published_baseline]
    if comparison.metric == "query_seconds":
        return baseline / optimised
    return optimised / baseline


# --- a run at 1/k --------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineRun:
    """One engine's run of a comparison at 1/scale: the benchmark's arguments and the cache."""

    comparison: str
    engine: str
    scale: int
    rows: int
    delete_after: int
    query_threads: int
    report_every: int
    cache_key: str
    cache_bytes: int
    cache_at_floor: bool  # the cache was held at its floor: more memory per row than the seed
    # The server's memory cgroup, for an engine whose data lives in the page cache too; None
    # for one that keeps it in a pool of its own (InnoDB, MyRocks).
    page_cache: PageCacheBound | None = None

    @property
    def server_kind(self) -> str:
        return "postgresql" if self.engine == "PostgreSQL" else "mariadb"

    @property
    def benchmark_engine(self) -> str | None:
        """--engine, MySQL/MariaDB only."""
        return None if self.engine == "PostgreSQL" else self.engine

    def cache_setting(self) -> dict[str, str]:
        unit = "kB" if self.engine == "PostgreSQL" else "K"
        return {self.cache_key: f"{self.cache_bytes // 1024}{unit}"}

    def memory_settings(self) -> dict[str, str]:
        """The cache, and for MyISAM and Aria the InnoDB pool MariaDB still starts (its system
        tables) at its 8 MB floor: the headroom of their rule was measured with it so."""
        if self.page_cache is None or self.server_kind != "mariadb":
            return self.cache_setting()
        pool_key, pool_floor = ENGINE_CACHES["InnoDB"]
        return {pool_key: f"{pool_floor // 1024}K", **self.cache_setting()}


@dataclass(frozen=True)
class PageCacheBound:
    """The memory cgroup of a run whose engine keeps its data in the page cache too: the seed
    host's memory scaled 1/k by the engine's rule (page_cache.server_memory_limit), which
    bounds the engine's cache and the page cache together."""

    engine: str
    memory_bytes: int  # the seed host's
    scale: int
    limit: int  # bytes
    headroom: int  # bytes the server's own processes hold on a host of any memory: not divided
    floor: int  # the least memory above the headroom the rule gives (the server starts in it)
    above_headroom: int  # the seed host's memory above the headroom, divided by k

    @property
    def at_floor(self) -> bool:
        """The memory above the headroom was held at the floor: more memory per row than the
        seed host had, so the cliff comes later in the run than the seed's did."""
        return self.above_headroom < self.floor

    def sentence(self) -> str:
        """How the limit was found: "the seed host's 16 GB scaled 1/2,000 above ..."."""
        held = (
            f", held at its floor of {_mb(self.floor)} above it ({_mb(self.above_headroom)} "
            "scaled): more memory per row than the seed host had"
            if self.at_floor
            else ""
        )
        return (
            f"the seed host's {self.memory_bytes / GIB:g} GB scaled 1/{self.scale:,} above "
            f"{ENGINE_NAMES[self.engine]}'s {_mb(self.headroom)} headroom{held}"
        )


def _mb(size: int) -> str:
    return f"{size / MIB:,.1f} MB" if size < 10 * MIB else f"{size / MIB:,.0f} MB"


def page_cache_bound(comparison: Comparison, engine: str, scale: int) -> PageCacheBound | None:
    """The memory cgroup of `engine`'s run of `comparison` at 1/`scale`; None for an engine
    with a pool of its own, whose cache setting alone bounds its memory."""
    family = POSTGRESQL if engine == "PostgreSQL" else MYSQL
    rule = ram_rule(family, engine)
    ram = server_memory_limit(comparison.memory_bytes / GIB, scale, family=family, engine=engine)
    if rule is None or ram is None:
        return None
    above = comparison.memory_bytes - rule.headroom
    return PageCacheBound(
        engine=engine,
        memory_bytes=comparison.memory_bytes,
        scale=scale,
        limit=ram.limit,
        headroom=rule.headroom,
        floor=rule.floor,
        above_headroom=above if scale <= 1 else round(above / scale),
    )


def memory_limit_text(run: EngineRun, read_back: int | None, no_cgroup: str = "") -> str:
    """What a run records of its server's memory: the limit read back from its cgroup (bytes),
    why there was none (`no_cgroup`: its page cache was then not bounded), or that its engine
    needs none."""
    bound = run.page_cache
    if bound is None:
        name = ENGINE_NAMES[run.engine]
        return f"no memory cgroup needed: {name} keeps its data in its own pool ({run.cache_key})"
    if read_back is None:
        return (
            f"no memory limit ({no_cgroup or 'no cgroup'}): its page cache was not bounded to "
            f"the seed host's memory scaled 1/{run.scale:,}"
        )
    asked = "" if read_back == bound.limit else f" ({_mb(bound.limit)} asked)"
    return f"memory limit {_mb(read_back)} read back from the cgroup{asked}: {bound.sentence()}"


REPORTS = 50  # report lines a run: enough for a curve and a terminal window of 5 reports
LEAST_ROWS = 1_000


def engine_runs(comparison: Comparison, scale: int, engines: Sequence[str] = ()) -> list[EngineRun]:
    """The runs of `comparison` at 1/`scale` (its engines, or those of `engines` it has)."""
    if scale < 1:
        raise ValueError(f"scale 1/{scale}: the scale is a whole number of at least 1")
    rows = max(LEAST_ROWS, comparison.seed_rows // scale)
    runs = []
    for engine in comparison.engines:
        if engines and engine not in engines:
            continue
        key, floor = ENGINE_CACHES[engine]
        wanted = int(comparison.memory_bytes * CACHE_SHARE / scale)
        cache = max(floor, wanted) // 1024 * 1024
        bound = page_cache_bound(comparison, engine, scale)
        if bound is not None and cache > bound.limit - bound.headroom:
            # The cache lives inside the cgroup: past the room above the headroom it would
            # leave the server no page cache, or no room to start. 70% of any seed host's
            # memory fits (a host of more than 233 MB); a new comparison must choose.
            raise ValueError(
                f"{key}={cache // 1024:,} kB does not fit in {engine}'s memory cgroup of "
                f"{bound.limit // 1024:,} kB ({bound.headroom // 1024:,} kB headroom)"
            )
        runs.append(
            EngineRun(
                comparison=comparison.key,
                engine=engine,
                scale=scale,
                rows=rows,
                delete_after=comparison.delete_after // scale if comparison.delete_after else 0,
                query_threads=comparison.query_threads,
                report_every=max(100, rows // REPORTS),
                cache_key=key,
                cache_bytes=cache,
                cache_at_floor=wanted < floor,
                page_cache=bound,
            )
        )
    return runs


# --- what a run measured --------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """One run's figures, read from its log's report lines."""

    rows: int
    seconds: float
    terminal_rate: float | None
    average_rate: float | None
    # The query thread's mean time over the run's last tenth (widened until a query ended).
    query_seconds: float | None
    curve: list[tuple[int, float]] = field(default_factory=list)  # (rows, interval rate)

    def figure(self, metric: str) -> float | None:
        return self.query_seconds if metric == "query_seconds" else self.terminal_rate


def measured_from_reports(
    rows: Sequence[int],
    seconds: Sequence[float],
    interval_rate: Sequence[float],
    queries: Sequence[int] | None,
    *,
    seed_rows: int,
) -> Measured:
    """The figures of a run at 1/k of a `seed_rows` run: the terminal rate over the same share
    of the run as the briefs' last 10M of 1B (widened to 5 reports), the average, and the
    query thread's mean time over the last tenth of the run."""
    if not len(rows):
        raise ValueError("the run printed no report lines")
    window = terminal_window(rows, seconds, target_rows=seed_rows)
    query_seconds = None
    if queries is not None and queries[-1] > 0:
        # The last tenth of the run, widened back to the report before it where no query
        # ended in it (a short run's query may outlast several reports).
        start = max(0, len(rows) - 1 - max(1, len(rows) // 10))
        while start >= 0 and queries[-1] - queries[start] <= 0:
            start -= 1
        if start < 0:  # every query ended by the first report: from the run's start
            done, spent = queries[-1], seconds[-1]
        else:
            done, spent = queries[-1] - queries[start], seconds[-1] - seconds[start]
        query_seconds = spent / done if spent > 0 else None
    return Measured(
        rows=int(rows[-1]),
        seconds=float(seconds[-1]),
        terminal_rate=window.rate,
        average_rate=rows[-1] / seconds[-1] if seconds[-1] > 0 else None,
        query_seconds=query_seconds,
        curve=[(int(r), float(rate)) for r, rate in zip(rows, interval_rate, strict=True)],
    )
