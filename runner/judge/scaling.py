"""A verification rerun at scale 1/k: rows/k rows on a server whose memory is scaled so the
data-to-memory ratio, and with it the shape of the curve, matches the claim's. Pure.

Scaling is not simply dividing the pool by k: InnoDB's page cleaner keeps
`innodb_lru_scan_depth` pages of the pool free of data (1,536 by default, 24 MB, whatever the
pool's size: a sixth of a 128 MB pool, nearly all of a 25 MB one). Measured with the C
benchmark on private MariaDB 10.11 servers (bench/scaling_sweeps.py, README "Scaling rule"),
with the free pages kept at the same share of the pool, the rows before the cliff (the rate's steepest
fall, as the insert-rate judge finds it) at 8 to 128 MB grow in proportion to the pool above a
fixed part: a straight line through 0.5 to 1 MB misses no pool by more than 11-13%. The claims
checked at 1/10 pin that part: the same 128 MB claim's cliff came 6-8 points of the run early on
13 MB and 2-4 late on 14 MB, so it is 1 MB. A rerun at 1/k divides the pool above it and the
free pages alike:

    depth_k = depth / k  (not below the server's least, 100 pages)
    pool_k  = 1 MB + (pool - 1 MB - depth pages) / k + depth_k pages

which for depth / k >= 100 is 1 MB + (pool - 1 MB) / k. The rule this replaced left the free
pages at the default and fitted an overhead of 11.5 MB for them: it placed the cliff, but past
it the small pool kept half its pages free, read 17-22% more pages per row than the claim and a
run at 1/10 took 11% of the claim's time.

Only down to a floor: MariaDB sizes a pool in whole MB, and below 8 MB that step moves the cliff
by more than a tenth of the run (7 and 8 MB for the same 1/20 claim: 40% and 54% of the run,
against 46%); the server does not start at 5 MB. A scale that would take the pool below the
floor is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from runner.judge.memory_budget import (
    CAPPED,
    CAPS,
    COUNTED,
    FREE_SHARE,
    HELD,
    LEAST_CONNECTION_CAP,
    memory_budget,
    treatment,
)
from runner.judge.server_options import ServerOption, decide
from submissions.setup.page_cache import max_ram_scale, ram_rule, server_memory_limit
from submissions.setup.server_settings import (
    MYSQL,
    POSTGRESQL,
    BadSize,
    applicable,
    size_in_bytes,
    size_text,
)

MIB = 1 << 20


@dataclass(frozen=True)
class FreePages:
    """Pages a memory setting keeps free of data, set by another setting (InnoDB's page cleaner
    keeps `innodb_lru_scan_depth` pages free): scaled with it, so the share of the pool that
    holds no data stays the claim's."""

    key: str
    default: int  # the server's own, when the entry did not declare it
    least: int  # the server refuses less
    page: int  # bytes

    def of_claim(self, declared: dict[str, str], logged: dict[str, str]) -> tuple[int, str]:
        """(pages, where from): as the claim's log prints its server's value, else as the
        entry declared it, else the server's default."""
        for source, settings in (("the claim's log", logged), ("declared", declared)):
            try:
                return max(self.least, int(settings[self.key])), source
            except (KeyError, ValueError):
                continue
        return self.default, "the server's default"


@dataclass(frozen=True)
class MeasuredRange:
    """Where a memory rule was measured (docs/scaling.md): the claims' sizes of the setting,
    the scales checked against claims, and the server. A verification outside it extrapolates
    the rule: it is labelled so and cannot give `reproduced`."""

    smallest: int  # bytes: the smallest size of the setting a curve was measured at
    largest: int  # bytes: the largest claim's
    largest_scale: int  # the largest k checked against a claim (its cliff within 6 points)
    server: tuple[str, str]  # (family, major version) as tracks.rerun.server_major names one
    where: str  # for people: what, when and on what it was measured
    # The storage engine whose curve it was measured on ("" any): a claim on another engine
    # (Aria, MyRocks) is not shaped by this setting, so its range says nothing of that claim.
    engine: str = ""

    def outside(self, key: str, size: int, scale: int, server: tuple[str, str] | None) -> list[str]:
        """What of a verification lies outside the range, one phrase each; [] when within.
        `size` 0 and `server` None are unknown, never counted as outside."""
        found = []
        if size and not self.smallest <= size <= self.largest:
            found.append(
                f"the claim's {key} of {size_text(size, MYSQL)} (measured "
                f"{size_text(self.smallest, MYSQL)} to {size_text(self.largest, MYSQL)})"
            )
        if scale > self.largest_scale:
            found.append(f"the scale 1/{scale} (checked up to 1/{self.largest_scale})")
        if server is not None and server != self.server:
            found.append(f"a {' '.join(server)} server (measured on {' '.join(self.server)})")
        return found


@dataclass(frozen=True)
class MemoryRule:
    floor: int  # below it the curve's shape no longer follows the setting (measured)
    ram_share: float  # the share of the declared RAM assumed when the entry did not set it
    # Rows before the cliff grow as (setting - overhead) ** exponent (measured); an overhead
    # of 0 and an exponent of 1 scale plainly.
    exponent: float = 1.0
    overhead: int = 0  # bytes of the setting that hold no index pages (measured)
    # The step the server sizes it in, 0 for none: MariaDB 10.11 cuts a buffer pool down to
    # whole MB (26.4 MB asked ran as 26 MB), so the rule asks for the nearest whole MB itself.
    step: int = 0
    free: FreePages | None = None  # the part kept free of data by another setting
    # What a declared 0 stands for, when 0 means "no limit of its own" (MyRocks'
    # rocksdb_db_write_buffer_size: each memtable then flushes at RocksDB's write_buffer_size,
    # 64 MB): scaled as that size, so a rerun's memtables hold 1/k of the claim's rows too.
    unlimited: int = 0
    measured: MeasuredRange | None = None  # where the rule was measured; None: not stated

    def scaled(self, size: int, scale: int, depth: int | None = None) -> int:
        """The size whose rows before the cliff are 1/`scale` of `size`'s (not floored), its
        free pages (`depth`, default the server's) scaled with it."""
        if size <= self.overhead:
            return size
        kept = kept_k = 0
        if self.free is not None:
            depth = self.free.default if depth is None else depth
            kept = depth * self.free.page
            kept_k = self.free_pages(depth, scale) * self.free.page
        data = max(0, size - self.overhead - kept)
        scaled = self.overhead + data / scale ** (1 / self.exponent) + kept_k
        return int(round(scaled / self.step) * self.step) if self.step else int(scaled)

    def free_pages(self, depth: int, scale: int) -> int:
        """The free pages a rerun at 1/`scale` keeps (not below the server's least)."""
        least = self.free.least if self.free is not None else 0
        return max(least, round(depth / scale ** (1 / self.exponent)))

    def max_scale(self, size: int, depth: int | None = None) -> int:
        """The largest k that keeps `size` scaled 1/k at or above the floor."""
        if size <= self.floor:
            return 1
        if self.scaled(size, 1 << 40, depth) >= self.floor:
            return 1 << 62  # the scaled size never reaches the floor
        low, high = 1, 1 << 40  # scaled(low) >= floor > scaled(high); it falls with k
        while high - low > 1:
            middle = (low + high) // 2
            if self.scaled(size, middle, depth) >= self.floor:
                low = middle
            else:
                high = middle
        return low

    @property
    def formula(self) -> str:
        mb = self.overhead / MIB
        root = f"{{k}} ** (1/{self.exponent:g})" if self.exponent != 1.0 else "{k}"
        nearest = ", to the nearest MB" if self.step == MIB else ""
        if self.free is not None:
            return (
                f"{mb:g} MB + ({{size}} - {mb:g} MB) / {root}, its free pages "
                f"({self.free.key}) scaled alike and at least {self.free.least}{nearest}"
            )
        if self.overhead:
            return f"({{size}} - {mb:g} MB) / {root} + {mb:g} MB{nearest}"
        if self.exponent != 1.0:
            return f"divided by {root}"
        return "divided by {k}"


# The InnoDB overhead, free pages and floor are the bench's measurements (README "Scaling
# rule"); the other floors the servers' least useful sizes. The RAM shares are the usual advice
# of each server's manual for a dedicated host, used only when an entry declared its RAM but
# not the setting.
INNODB_FREE_PAGES = FreePages(key="innodb_lru_scan_depth", default=1536, least=100, page=16384)
# docs/scaling.md: the sweep's pools of 8 to 128 MB (the rows before the cliff in proportion to
# the pool above 1 MB), claims of 64 and 128 MB checked at 1/4 to 1/15 (every cliff within 6
# points of the run of its claim's; at 1/20 a 1 MB step moved it 8 to 14 points), all on
# private MariaDB 10.11 servers, InnoDB, the C benchmark's classic inserts, 24 Nov 2026.
INNODB_MEASURED = MeasuredRange(
    smallest=8 * MIB,
    largest=128 * MIB,
    largest_scale=15,
    server=("MariaDB", "10.11"),
    where="MariaDB 10.11, InnoDB, the C benchmark's inserts, 24 Nov 2026 (docs/scaling.md)",
    engine="InnoDB",
)
# docs/scaling.md "MyISAM and Aria": key buffers of 1 to 16 MB in memory cgroups of 64 to
# 96 MB and 1 GB (the cliff in proportion to the cgroup's memory less the key buffer, none with
# the page cache unbounded), a claim of 80 MB checked at 1/2; private MariaDB 10.11, MyISAM, the
# C benchmark's classic inserts, 26 Nov 2026.
MYISAM_MEASURED = MeasuredRange(
    smallest=MIB,
    largest=16 * MIB,
    largest_scale=2,
    server=("MariaDB", "10.11"),
    where="MariaDB 10.11, MyISAM in a memory cgroup, the C benchmark's inserts, 26 Nov 2026 "
    "(docs/scaling.md)",
    engine="MyISAM",
)
# docs/scaling.md "MyISAM and Aria": page cache buffers of 1 to 16 MB in memory cgroups of 84
# to 128 MB (the cliff in proportion to the cgroup's memory less the buffer), a claim of 112 MB
# checked at 1/2 (three reruns, the cliff at 80% as the claim's); private MariaDB 10.11, Aria,
# the C benchmark's classic inserts, 26 Nov 2026.
ARIA_MEASURED = MeasuredRange(
    smallest=MIB,
    largest=16 * MIB,
    largest_scale=2,
    server=("MariaDB", "10.11"),
    where="MariaDB 10.11, Aria in a memory cgroup, the C benchmark's inserts, 26 Nov 2026 "
    "(docs/scaling.md)",
    engine="Aria",
)
MEMORY_RULES = {
    MYSQL: {
        "innodb_buffer_pool_size": MemoryRule(
            floor=8 * MIB,
            ram_share=0.7,
            overhead=MIB,
            step=MIB,
            free=INNODB_FREE_PAGES,
            measured=INNODB_MEASURED,
        ),
        # MyISAM (docs/scaling.md "MyISAM and Aria"): the key cache sits in the server's
        # memory cgroup (the declared RAM scaled, page_cache.py) and takes its room from the
        # page cache, so it is scaled plainly with the RAM; alone it makes no cliff.
        "key_buffer_size": MemoryRule(floor=MIB, ram_share=0.0, measured=MYISAM_MEASURED),
        # Aria alike (the same section): its page cache buffer takes its room from the page
        # cache in the server's cgroup, so it is scaled plainly with the RAM.
        "aria_pagecache_buffer_size": MemoryRule(floor=MIB, ram_share=0.0, measured=ARIA_MEASURED),
        # MyRocks (docs/scaling.md "MyRocks"): no cliff was measured for either; both are
        # scaled plainly, the memtables from RocksDB's own 64 MB when the claim set no limit.
        "rocksdb_block_cache_size": MemoryRule(floor=8 * MIB, ram_share=0.0),
        "rocksdb_db_write_buffer_size": MemoryRule(
            floor=4 * MIB, ram_share=0.0, unlimited=64 * MIB
        ),
    },
    # No cliff was measured for shared_buffers alone (the OS page cache holds the table): it
    # is scaled plainly, and the page cache is bounded by the server's memory cgroup, the
    # declared RAM scaled 1/k (page_cache.py), where the cliff is.
    POSTGRESQL: {
        "shared_buffers": MemoryRule(floor=MIB, ram_share=0.25),
        "effective_cache_size": MemoryRule(floor=MIB, ram_share=0.75),
    },
}


def scaled_size(declared: int, scale: int, rule: MemoryRule, depth: int | None = None) -> int:
    """`declared` scaled 1/`scale` by `rule`, not below its floor; `depth` is the free pages
    the claim's server kept (the rule's default when None)."""
    if scale <= 1:
        return declared
    return max(rule.floor, rule.scaled(declared, scale, depth))


@dataclass(frozen=True)
class ScaledMemory:
    settings: dict[str, str]  # key -> value to apply
    notes: list[str]  # one line per setting: where it came from and what it became


# A memory setting never takes more than this share of the verification host's memory: a
# server asked for more than the host has would swap or not start, and verify nothing.
HOST_SHARE = 0.5


def memory_for_scale(
    declared: dict[str, str],
    *,
    family: str,
    scale: int,
    memory_gb: float,
    host_memory_gb: float = 0,
    logged: dict[str, str] | None = None,
    engine: str = "",
) -> ScaledMemory:
    """The memory settings of a rerun at scale 1/`scale`, from the declared settings or, where
    the entry set none, from its declared RAM (memory_gb; 0 for none); each at most HOST_SHARE
    of `host_memory_gb` when that is known, said so in the notes. `logged`: the settings the
    claim's log prints (its server's own values), for the pages kept free. `engine`: the
    rerun's; a rule measured on another engine's curve is not applied (an InnoDB pool made up
    from the RAM of a MyISAM claim, or grown by InnoDB's free pages, would take the room of
    its page cache): such a setting is scaled plainly with the others (memory_budget)."""
    settings, notes = {}, []
    for key, rule in MEMORY_RULES.get(family, {}).items():
        if rule.measured is not None and not _same_engine(rule.measured.engine, engine):
            continue
        source = f"declared {key} = {declared[key]}" if key in declared else ""
        try:
            size = size_in_bytes(declared[key], family=family, key=key) if source else 0
        except BadSize as error:
            notes.append(f"{error}: left at the server's default")
            continue
        if source and size == 0 and rule.unlimited:
            size = rule.unlimited
            source += f" (0: no limit of its own, {size_text(size, family)} memtables)"
        if not source and rule.ram_share and memory_gb > 0:
            size = int(memory_gb * (1 << 30) * rule.ram_share)
            source = f"{rule.ram_share:.0%} of the declared {memory_gb:g} GB RAM"
        if not source:
            continue
        depth, origin = (
            rule.free.of_claim(declared, logged or {}) if rule.free is not None else (None, "")
        )
        scaled = scaled_size(size, scale, rule, depth)
        cap = int(host_memory_gb * (1 << 30) * HOST_SHARE)
        if cap and scaled > cap:
            notes.append(
                f"{key} capped at {size_text(cap, family)}: half of this host's "
                f"{host_memory_gb:g} GB (the data-to-memory ratio is not the claim's)"
            )
            scaled = cap
        settings[key] = size_text(scaled, family)
        how = rule.formula.format(size=size_text(size, family), k=scale)
        notes.append(
            f"{key} = {settings[key]} ({source}, scaled 1/{scale}: {how})"
            if scale > 1
            else f"{key} = {settings[key]} ({source})"
        )
        if rule.free is not None and depth is not None and scale > 1:
            settings[rule.free.key] = str(rule.free_pages(depth, scale))
            notes.append(
                f"{rule.free.key} = {settings[rule.free.key]} ({origin} {depth}, scaled "
                f"1/{scale} with {key}: the pages InnoDB keeps free of data, not below "
                f"{rule.free.least})"
            )
    return ScaledMemory(settings, notes)


def scaled_rows(claimed_rows: int, scale: int) -> int:
    return max(1_000, claimed_rows // max(1, scale))


# A run at 1/k takes this share of its claim's time, times 1/k (docs/scaling.md, the claim of
# 3,000,000 rows and 128 MB beside its own reruns: 24.2% at 1/4, 9.6% at 1/10, 6.4% at 1/15).
TIME_AT_SCALE = 0.96
# Of a target's time limit a default scale plans to use: the verification host may be slower
# than the entrant's.
TIME_LIMIT_SHARE = 0.5


class NoScaleFits(ValueError):
    """No scale both keeps the memory at or above its floor and fits the time limit (the
    message says both figures)."""


def expected_seconds(claimed_seconds: float, scale: int, repeats: int) -> float:
    """What `repeats` runs at 1/`scale` are expected to take, from the claim's time."""
    return repeats * claimed_seconds * TIME_AT_SCALE / max(1, scale)


def default_scale(
    *,
    claimed_rows: int,
    claimed_seconds: float,
    time_limit: int,
    repeats: int,
    largest: tuple[int, str] | None = None,
) -> int:
    """The smallest k whose repeats are expected to fit in TIME_LIMIT_SHARE of the target's
    time limit (`expected_seconds`) and, with `largest` (max_scale: the largest k and the
    setting it keeps at its floor), at most that k. Raises NoScaleFits when the time asks for
    a k past the floor's."""
    if claimed_seconds <= 0 or claimed_rows <= 0:
        return 1
    budget = time_limit * TIME_LIMIT_SHARE
    scale = max(1, math.ceil(repeats * claimed_seconds * TIME_AT_SCALE / budget))
    if largest is not None and scale > largest[0]:
        most, key = largest
        raise NoScaleFits(
            f"No scale fits: {repeats} run{'s' if repeats != 1 else ''} at 1/{most}, the "
            f"smallest run that keeps the entry's {key} at or above its floor, are expected to "
            f"take {expected_seconds(claimed_seconds, most, repeats):,.0f} s (the claim's "
            f"{claimed_seconds:,.0f} s x {TIME_AT_SCALE:g} / {most} each), more than "
            f"{TIME_LIMIT_SHARE:.0%} of the target's time limit of {time_limit:,} s. Ask for "
            "fewer repeats or a target with a longer time limit."
        )
    return scale


@dataclass(frozen=True)
class RerunSettings:
    """What a rerun's private server is started with, and what it is not, with why."""

    applied: dict[str, str]
    refused: dict[str, str]  # key -> the message naming it
    notes: list[str]
    # Short "key declared -> applied (why)" lines for the verdict: scaled, capped, refused.
    changes: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)  # declared key -> name applied as
    memory_limit: int = 0  # bytes for the server's cgroup (0: no budget known)
    # How the limit is the claim's RAM scaled 1/k (PostgreSQL, MyISAM, Aria: page_cache.py);
    # "" where it is only a ceiling on the server's worst case (memory_budget.py).
    ram_note: str = ""
    # Whether the engine's data lives in the page cache (page_cache.ram_rule): without the
    # scaled RAM as its cgroup's limit, the page cache holds the table and no cliff can appear.
    in_page_cache: bool = False


# Sizes that shape the curve but are not scaled with the memory: the redo log (InnoDB's is a
# file a rerun's server is not given: server_options refuses it) and PostgreSQL's WAL before a
# checkpoint. At 1/k the rerun's run is k times smaller against the same log, so it checkpoints
# less often than its claim did: named in the verdict as unscaled, never silently.
UNSCALED_SIZES = {
    MYSQL: ("innodb_log_file_size",),
    POSTGRESQL: ("max_wal_size",),
}


def unscaled_sizes(
    declared: dict[str, str], logged: dict[str, str], *, family: str, scale: int
) -> list[str]:
    """A line per curve-shaping size a rerun at 1/`scale` does not scale, with the claim's
    value (its log's, else declared, else the server's default)."""
    if scale <= 1:
        return []
    lines = []
    for key in UNSCALED_SIZES.get(family, ()):
        value = logged.get(key) or declared.get(key)
        claimed = f"the claim's {_shown_size(value, family)}" if value else "the server's default"
        lines.append(
            f"{key} not scaled 1/{scale} ({claimed}): the rerun's run is {scale}x smaller "
            "against the same log, so it checkpoints less often than the claim"
        )
    return lines


def _shown_size(value: str, family: str) -> str:
    try:
        return size_text(size_in_bytes(value), family)
    except BadSize:
        return value


def rerun_settings(
    declared: dict[str, str],
    *,
    entry_family: str,
    server_family: str,
    scale: int,
    memory_gb: float,
    host_memory_gb: float = 0,
    logged: dict[str, str] | None = None,
    options: dict[str, ServerOption] | None = None,
    free_memory: int = 0,
    connection_cap: int = LEAST_CONNECTION_CAP,
    engine: str = "",
) -> RerunSettings:
    """The entry's allowed settings with memory scaled 1/`scale`. A server of another family
    (a comparison run) gets only memory, from the declared RAM: the entry's settings are not
    its own. With `options` (the option table the server binary describes) a setting is
    applied only under its exact name, typed (server_options.decide), and every memory setting
    is scaled and the server's worst case kept within `free_memory` (memory_budget); without,
    the name allow-list alone decides (the entry page, which has no server binary). `engine`:
    the rerun's storage engine; one whose data lives in the page cache (MyISAM, Aria, as
    PostgreSQL's) runs in a cgroup of the declared RAM scaled 1/k (page_cache.py)."""
    if entry_family != server_family:
        memory = memory_for_scale(
            {},
            family=server_family,
            scale=scale,
            memory_gb=memory_gb,
            host_memory_gb=host_memory_gb,
        )
        note = f"the entry's {entry_family} settings do not apply to a {server_family} server"
        asked = RerunSettings(memory.settings, {}, [note, *memory.notes])
    else:
        if options is None:
            allowed = applicable(declared, server_family)
            applied, refused, renamed = allowed.applied, allowed.refused, {}
        else:
            decision = decide(declared, options, server_family)
            applied, refused, renamed = decision.applied, decision.refused, decision.renamed
        memory = memory_for_scale(
            applied,
            family=server_family,
            scale=scale,
            memory_gb=memory_gb,
            host_memory_gb=host_memory_gb,
            logged=logged,
            engine=engine,
        )
        changes = [
            f"{key} {applied[key]} -> {value} (scaled 1/{scale})"
            for key, value in memory.settings.items()
            if key in applied and applied[key] != value
        ]
        changes += [f"{key} refused" for key in refused]
        changes += [f"{key} applied as {name}" for key, name in renamed.items()]
        changes += unscaled_sizes(declared, logged or {}, family=server_family, scale=scale)
        asked = RerunSettings(
            {**applied, **memory.settings}, refused, memory.notes, changes, renamed
        )
    if options is None:
        return asked
    budget = memory_budget(
        asked.applied,
        family=server_family,
        options=options,
        scale=scale,
        already_scaled=set(memory.settings),
        free_memory=free_memory,
        connection_cap=connection_cap,
        floors={key: rule.floor for key, rule in MEMORY_RULES.get(server_family, {}).items()},
    )
    limit, notes = budget.memory_limit, [*asked.notes, *budget.notes]
    ram = server_memory_limit(memory_gb, scale, family=server_family, engine=engine)
    if ram is not None:
        # PostgreSQL's, MyISAM's and Aria's data live in the page cache too: the cgroup is the
        # scaled RAM, which bounds their buffers and the page cache together (page_cache.py).
        limit = ram.limit
        notes.append(ram.note)
        if free_memory and limit > free_memory * FREE_SHARE:
            notes.append(
                f"the memory limit is above {FREE_SHARE:.0%} of the worker's free memory "
                f"{size_text(free_memory, server_family)}: the host may swap"
            )
    return RerunSettings(
        budget.settings,
        asked.refused,
        notes,
        [*asked.changes, *budget.changes],
        asked.renamed,
        limit,
        ram.note if ram is not None else "",
        ram_rule(server_family, engine) is not None,
    )


def _declared_size(
    declared: dict[str, str], key: str, rule: MemoryRule, family: str, memory_gb: float
) -> int:
    if key in declared:
        try:
            return size_in_bytes(declared[key], family=family, key=key)
        except BadSize:
            return 0
    return int(memory_gb * (1 << 30) * rule.ram_share)


def max_scale(
    declared: dict[str, str],
    *,
    family: str,
    memory_gb: float,
    logged: dict[str, str] | None = None,
    engine: str = "",
) -> tuple[int, str] | None:
    """The largest k whose scaled pool stays at or above its floor, with the setting that
    limits it; None when nothing limits it. `logged` as for memory_for_scale; `engine` the
    claim's (one whose data lives in the page cache is limited by its declared RAM's floor)."""
    limits = []
    for key, rule in MEMORY_RULES.get(family, {}).items():
        if rule.exponent == 1.0 and not rule.overhead:
            continue  # scaled plainly: no floor measured under which the shape changes
        size = _declared_size(declared, key, rule, family, memory_gb)
        if size and _same_engine(rule.measured.engine if rule.measured else "", engine):
            depth = rule.free.of_claim(declared, logged or {})[0] if rule.free else None
            limits.append((rule.max_scale(size, depth), key))
    rule = ram_rule(family, engine)
    if rule is not None and memory_gb > 0:
        limits.append((max_ram_scale(int(memory_gb * (1 << 30)), rule), "declared RAM"))
    return min(limits) if limits else None


@dataclass(frozen=True)
class Extrapolation:
    """What of a verification lies outside the range its scaling rule was measured on."""

    outside: list[str]  # one phrase each: "the scale 1/20 (checked up to 1/15)"
    where: str  # where the rule was measured

    def sentence(self) -> str:
        return (
            f"Extrapolated: the scaling rule was measured on {self.where}; outside it here: "
            f"{'; '.join(self.outside)}. So at best the shape is verified."
        )

    def short(self) -> str:
        return f"{'; '.join(self.outside)} outside the scaling rule's measured range"


def _same_engine(measured: str, claimed: str) -> bool:
    """Whether a range measured on `measured` speaks of a claim on `claimed` (either unknown:
    it does)."""
    return not measured or not claimed.strip() or measured.lower() == claimed.strip().lower()


def extrapolated(
    declared: dict[str, str],
    *,
    family: str,
    scale: int,
    memory_gb: float,
    server: tuple[str, str] | None,
    engine: str = "",
) -> Extrapolation | None:
    """What of a verification at 1/`scale` lies outside the range its scaling rule was
    measured on (MeasuredRange); None when nothing does or no rule states a range.
    `declared`: the claim's settings as run; `server`: the rerun's (family, major); `engine`:
    the claim's storage engine (a range measured on another engine's curve does not apply;
    unknown: every range applies)."""
    if scale <= 1:
        return None
    found, where = [], []
    for key, rule in MEMORY_RULES.get(family, {}).items():
        if rule.measured is None or not _same_engine(rule.measured.engine, engine):
            continue
        size = _declared_size(declared, key, rule, family, memory_gb)
        if not size and not engine.strip() and rule.measured.engine:
            continue  # an engine's own setting, not set by a claim of no named engine
        outside = rule.measured.outside(key, size, scale, server)
        found += [each for each in outside if each not in found]
        where += [rule.measured.where] if outside else []
    return Extrapolation(found, where[0]) if found else None


@dataclass(frozen=True)
class SettingFate:
    """What every verification does with one declared setting, as the entry page says it."""

    applied: bool
    sentence: str  # "applied", "applied as tmp_table_size, scaled ...", or the refusal


def setting_fates(
    declared: dict[str, str], *, options: dict[str, ServerOption], family: str
) -> dict[str, SettingFate]:
    """Each declared setting's fate, decided by what a rerun runs: the same decision
    (server_options.decide: exact names, aliases mapped, one size grammar) and the same memory
    budget (memory_budget: held and capped alike at any scale; the counted memory scaled with
    the rerun's k and its free memory, known only when it runs)."""
    decision = decide(declared, options, family)
    fixed = memory_budget(
        decision.applied,
        family=family,
        options=options,
        scale=1,
        already_scaled=set(),
        free_memory=0,
        connection_cap=LEAST_CONNECTION_CAP,
    ).settings
    fates = {}
    for key in declared:
        if key in decision.refused:
            fates[key] = SettingFate(False, decision.refused[key])
            continue
        name = decision.renamed.get(key, key)
        applied = f"applied as {name}" if name != key else "applied"
        fates[key] = SettingFate(True, applied + _how(name, decision.applied[name], fixed, family))
    return fates


def _how(name: str, value: str, fixed: dict[str, str], family: str) -> str:
    rules = MEMORY_RULES.get(family, {})
    if treatment(name, family) == COUNTED and size_in_bytes(value, family=family, key=name) < 0:
        return " (the server derives it)"
    if name in rules or treatment(name, family) == COUNTED:
        how = f" ({rules[name].formula.format(size=value, k='k')})" if name in rules else ""
        return (
            f", scaled 1/k with the rerun{how}, and the server's memory kept within the "
            "worker's memory budget"
        )
    if any(rule.free is not None and rule.free.key == name for rule in rules.values()):
        return ", scaled 1/k with the pool whose free pages it keeps"
    if name == "max_connections":
        return f", at most the connections the benchmark opens (at least {LEAST_CONNECTION_CAP})"
    if treatment(name, family) == HELD:
        if name not in fixed:
            return " as the server's default (the memory budget does not count it)"
        if fixed[name] != value:
            return f" as {fixed[name]}, the server's default (the memory budget does not count it)"
    if treatment(name, family) == CAPPED and fixed[name] != value:
        return f" as {fixed[name]}, capped (it {CAPS[family][name][1]})"
    return ""
