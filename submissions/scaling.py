"""A verification rerun at scale 1/k: rows/k rows on a server whose memory is scaled so the
data-to-memory ratio, and with it the shape of the curve, matches the claim's. Pure.

Scaling is not simply dividing by k: part of an InnoDB buffer pool holds no index pages of the
run. Measured with the C benchmark on private MariaDB 10.11 servers (bench/scaling.py, README
"Scaling rule"), the rows before the cliff (the rate's steepest fall, as the insert-rate judge
finds it) at 16, 24, 26 (nine runs), 32, 48, 64 and 128 MB pools follow

    rows = a * (pool - overhead) ** exponent,  overhead 11.5 MB, exponent 1.06

within 6% (a line, exponent 1, with 12.1 MB within 9%; a power through the origin misses by
32%). So to insert 1/k of the rows the pool keeps its overhead and shrinks the rest:

    pool_k = overhead + (pool - overhead) / k ** (1 / exponent)

and only down to a floor: below about 16 MB the cliff stopped following the pool (a 12 MB
pool fell at the same row as a 16 MB one; at 11 MB a 30,000-row run never fell), so a scale
that would take the pool below it does not keep the curve's shape and is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from submissions.server_settings import (
    MYSQL,
    POSTGRESQL,
    BadSize,
    applicable,
    size_in_bytes,
    size_text,
)

MIB = 1 << 20


@dataclass(frozen=True)
class MemoryRule:
    floor: int  # below it the curve's shape no longer follows the setting (measured)
    ram_share: float  # the share of the declared RAM assumed when the entry did not set it
    # Rows before the cliff grow as (setting - overhead) ** exponent (measured); an overhead
    # of 0 and an exponent of 1 scale plainly.
    exponent: float = 1.0
    overhead: int = 0  # bytes of the setting that hold no index pages (measured)
    # The step the server sizes it in, 0 for none: MariaDB 10.11 cuts a buffer pool down to
    # whole MB (26.4 MB asked ran as 26 MB, 17.9 MB as 17 MB, which near the floor moved the
    # cliff by a tenth of the run), so the rule asks for the nearest whole MB itself.
    step: int = 0

    def scaled(self, size: int, scale: int) -> int:
        """The size whose rows before the cliff are 1/`scale` of `size`'s (not floored)."""
        if size <= self.overhead:
            return size
        scaled = self.overhead + (size - self.overhead) / scale ** (1 / self.exponent)
        return int(round(scaled / self.step) * self.step) if self.step else int(scaled)

    def max_scale(self, size: int) -> int:
        """The largest k that keeps `size` scaled 1/k at or above the floor."""
        if size <= self.floor:
            return 1
        if self.floor <= self.overhead:
            return 1 << 62  # the scaled size never reaches the floor
        return max(
            1, math.floor(((size - self.overhead) / (self.floor - self.overhead)) ** self.exponent)
        )

    @property
    def formula(self) -> str:
        if self.overhead:
            mb = self.overhead / MIB
            nearest = ", to the nearest MB" if self.step == MIB else ""
            return f"({{size}} - {mb:g} MB) / {{k}} ** (1/{self.exponent:g}) + {mb:g} MB{nearest}"
        if self.exponent != 1.0:
            return f"divided by {{k}} ** (1/{self.exponent:g})"
        return "divided by {k}"


# The InnoDB overhead, exponent and floor are the bench's measurements (README "Scaling rule"); the
# other floors the servers' least useful sizes. The RAM shares are the usual advice of each
# server's manual for a dedicated host, used only when an entry declared its RAM but not the
# setting.
MEMORY_RULES = {
    MYSQL: {
        "innodb_buffer_pool_size": MemoryRule(
            floor=16 * MIB, ram_share=0.7, exponent=1.06, overhead=int(11.5 * MIB), step=MIB
        ),
        "key_buffer_size": MemoryRule(floor=MIB, ram_share=0.0),
        "aria_pagecache_buffer_size": MemoryRule(floor=MIB, ram_share=0.0),
    },
    # No cliff was measured for shared_buffers alone (the OS page cache holds the table): it
    # is scaled plainly.
    POSTGRESQL: {
        "shared_buffers": MemoryRule(floor=MIB, ram_share=0.25),
        "effective_cache_size": MemoryRule(floor=MIB, ram_share=0.75),
    },
}


def scaled_size(declared: int, scale: int, rule: MemoryRule) -> int:
    if scale <= 1:
        return declared
    return max(rule.floor, rule.scaled(declared, scale))


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
) -> ScaledMemory:
    """The memory settings of a rerun at scale 1/`scale`, from the declared settings or, where
    the entry set none, from its declared RAM (memory_gb; 0 for none); each at most HOST_SHARE
    of `host_memory_gb` when that is known, said so in the notes."""
    settings, notes = {}, []
    for key, rule in MEMORY_RULES.get(family, {}).items():
        source = f"declared {key} = {declared[key]}" if key in declared else ""
        try:
            size = size_in_bytes(declared[key], family=family, key=key) if source else 0
        except BadSize as error:
            notes.append(f"{error}: left at the server's default")
            continue
        if not source and rule.ram_share and memory_gb > 0:
            size = int(memory_gb * (1 << 30) * rule.ram_share)
            source = f"{rule.ram_share:.0%} of the declared {memory_gb:g} GB RAM"
        if not source:
            continue
        scaled = scaled_size(size, scale, rule)
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
    return ScaledMemory(settings, notes)


def scaled_rows(claimed_rows: int, scale: int) -> int:
    return max(1_000, claimed_rows // max(1, scale))


def default_scale(
    *, claimed_rows: int, claimed_seconds: float, time_limit: int, repeats: int
) -> int:
    """The smallest k whose repeats fit in the target's time limit, with half of it to spare
    (the verification host may be slower than the entrant's)."""
    if claimed_seconds <= 0 or claimed_rows <= 0:
        return 1
    budget = time_limit / 2 / max(1, repeats)
    return max(1, math.ceil(claimed_seconds / budget))


@dataclass(frozen=True)
class RerunSettings:
    """What a rerun's private server is started with, and what it is not, with why."""

    applied: dict[str, str]
    refused: dict[str, str]  # key -> the message naming it
    notes: list[str]


def rerun_settings(
    declared: dict[str, str],
    *,
    entry_family: str,
    server_family: str,
    scale: int,
    memory_gb: float,
    host_memory_gb: float = 0,
) -> RerunSettings:
    """The entry's allowed settings with memory scaled 1/`scale`. A server of another family
    (a comparison run) gets only memory, from the declared RAM: the entry's settings are not
    its own."""
    if entry_family != server_family:
        memory = memory_for_scale(
            {},
            family=server_family,
            scale=scale,
            memory_gb=memory_gb,
            host_memory_gb=host_memory_gb,
        )
        note = f"the entry's {entry_family} settings do not apply to a {server_family} server"
        return RerunSettings(memory.settings, {}, [note, *memory.notes])
    allowed = applicable(declared, server_family)
    memory = memory_for_scale(
        allowed.applied,
        family=server_family,
        scale=scale,
        memory_gb=memory_gb,
        host_memory_gb=host_memory_gb,
    )
    return RerunSettings({**allowed.applied, **memory.settings}, allowed.refused, memory.notes)


def _declared_size(
    declared: dict[str, str], key: str, rule: MemoryRule, family: str, memory_gb: float
) -> int:
    if key in declared:
        try:
            return size_in_bytes(declared[key], family=family, key=key)
        except BadSize:
            return 0
    return int(memory_gb * (1 << 30) * rule.ram_share)


def max_scale(declared: dict[str, str], *, family: str, memory_gb: float) -> tuple[int, str] | None:
    """The largest k whose scaled pool stays at or above its floor, with the setting that
    limits it; None when nothing limits it."""
    limits = []
    for key, rule in MEMORY_RULES.get(family, {}).items():
        if rule.exponent == 1.0 and not rule.overhead:
            continue  # scaled plainly: no floor measured under which the shape changes
        size = _declared_size(declared, key, rule, family, memory_gb)
        if size:
            limits.append((rule.max_scale(size), key))
    return min(limits) if limits else None
