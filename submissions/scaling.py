"""A verification rerun at scale 1/k: rows/k rows on a server whose memory is scaled so the
data-to-memory ratio, and with it the shape of the curve, matches the claim's. Pure.

Scaling is not simply dividing by k: part of a buffer pool never holds the table's pages
(page hash, adaptive hash index, undo, the change buffer, dictionary). Measured with the C
benchmark (bench/scaling.py, README "Scaling rule"), the rows a pool holds before the cliff
grow with (pool - overhead), not with the pool; so the scaled pool keeps the overhead whole
and divides the rest:

    pool_k = (pool - overhead) / k + overhead

and only down to a floor: below about 16 MB the cliff stopped following the pool (a 12 MB
pool fell at the same row as a 16 MB one, an 11 MB one not within 30,000 rows), so a scale
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
    overhead: int  # bytes of the setting that never hold the table's pages (measured)
    floor: int  # the least the server accepts, or the least that still runs the benchmark
    ram_share: float  # the share of the declared RAM assumed when the entry did not set it


# The overheads are the bench's measurements (README "Scaling rule"); the floors the servers'
# own minimums. The RAM shares are the usual advice of each server's manual for a dedicated
# host, used only when an entry declared its RAM but not the setting.
MEMORY_RULES = {
    MYSQL: {
        "innodb_buffer_pool_size": MemoryRule(overhead=10 * MIB, floor=16 * MIB, ram_share=0.7),
        "key_buffer_size": MemoryRule(overhead=0, floor=MIB, ram_share=0.0),
        "aria_pagecache_buffer_size": MemoryRule(overhead=0, floor=MIB, ram_share=0.0),
    },
    # No cliff was measured for shared_buffers alone (the OS page cache holds the table): it
    # is scaled plainly, with PostgreSQL's least useful size as the floor.
    POSTGRESQL: {
        "shared_buffers": MemoryRule(overhead=0, floor=MIB, ram_share=0.25),
        "effective_cache_size": MemoryRule(overhead=0, floor=MIB, ram_share=0.75),
    },
}


def scaled_size(declared: int, scale: int, rule: MemoryRule) -> int:
    if scale <= 1:
        return declared
    usable = max(0, declared - rule.overhead)
    return max(rule.floor, usable // scale + rule.overhead)


@dataclass(frozen=True)
class ScaledMemory:
    settings: dict[str, str]  # key -> value to apply
    notes: list[str]  # one line per setting: where it came from and what it became


def memory_for_scale(
    declared: dict[str, str], *, family: str, scale: int, memory_gb: float
) -> ScaledMemory:
    """The memory settings of a rerun at scale 1/`scale`, from the declared settings or, where
    the entry set none, from its declared RAM."""
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
        settings[key] = size_text(scaled, family)
        notes.append(
            f"{key} = {settings[key]} ({source}, scaled 1/{scale}: "
            f"({size_text(size, family)} - {size_text(rule.overhead, family) if rule.overhead else '0'})"
            f"/{scale} + overhead)"
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
    declared: dict[str, str], *, entry_family: str, server_family: str, scale: int, memory_gb: float
) -> RerunSettings:
    """The entry's allowed settings with memory scaled 1/`scale`. A server of another family
    (a comparison run) gets only memory, from the declared RAM: the entry's settings are not
    its own."""
    if entry_family != server_family:
        memory = memory_for_scale({}, family=server_family, scale=scale, memory_gb=memory_gb)
        note = f"the entry's {entry_family} settings do not apply to a {server_family} server"
        return RerunSettings(memory.settings, {}, [note, *memory.notes])
    allowed = applicable(declared, server_family)
    memory = memory_for_scale(
        allowed.applied, family=server_family, scale=scale, memory_gb=memory_gb
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
        if not rule.overhead:
            continue  # scaled plainly: no floor measured under which the shape changes
        size = _declared_size(declared, key, rule, family, memory_gb)
        if size:
            limits.append(
                (max(1, (size - rule.overhead) // max(1, rule.floor - rule.overhead)), key)
            )
    return min(limits) if limits else None
