"""The memory a verification's private server may use: every memory-sized setting scaled 1/k
with the run (the buffer pool and its kin by their measured rules in scaling.py, the others
plainly), the connection limit capped to what a benchmark needs, and the server's worst case
(per-server buffers plus per-connection buffers times the connections, PostgreSQL's background
workers counted as connections and its autovacuum_work_mem once per autovacuum worker) kept
below a share of the worker's free memory; memory it does not count held at the server's
default and the counts that size PostgreSQL's shared memory capped (CAPS). Pure: settings and
the server's option table in, settings and notes naming both values out.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.judge.server_options import (
    PER_CONNECTION,
    PER_SERVER,
    UNCOUNTED_MEMORY,
    ServerOption,
)
from submissions.setup.server_settings import MYSQL, POSTGRESQL, size_in_bytes, size_text

MIB = 1 << 20

# PostgreSQL's --describe-config gives no defaults: its documented ones, in bytes.
POSTGRESQL_DEFAULTS = {
    "shared_buffers": 128 * MIB,
    "wal_buffers": 4 * MIB,
    "maintenance_work_mem": 64 * MIB,
    "autovacuum_work_mem": 64 * MIB,
    "work_mem": 4 * MIB,
    "temp_buffers": 8 * MIB,
    "min_dynamic_shared_memory": 0,
    "logical_decoding_work_mem": 64 * MIB,
    "max_connections": 100,
}
# Counts that size a server's shared memory or multiply its per-query memory, capped at what a
# benchmark's few connections and single table need (PostgreSQL sizes its lock tables,
# process slots and hash tables from them at start: 2.87 GB of shared memory before a
# benchmark started, from these alone). Name -> (the most a rerun applies, why).
CAPS = {
    POSTGRESQL: {
        "max_locks_per_transaction": (256, "sizes the shared lock table, times the connections"),
        "max_pred_locks_per_transaction": (
            256,
            "sizes the shared predicate lock table, times the connections",
        ),
        "max_prepared_transactions": (16, "takes shared memory a slot; the benchmark uses none"),
        "max_worker_processes": (16, "takes a process slot of shared memory a worker"),
        "max_parallel_workers": (16, "is at most max_worker_processes"),
        "max_parallel_workers_per_gather": (16, "is at most max_parallel_workers"),
        "max_parallel_maintenance_workers": (16, "is at most max_parallel_workers"),
        "autovacuum_max_workers": (6, "lets each worker hold autovacuum_work_mem"),
        "hash_mem_multiplier": (2, "multiplies work_mem for every hash table"),
    },
    MYSQL: {},
}
# The server's worst case may take this share of the worker's free memory (MemAvailable).
FREE_SHARE = 0.5
# What a server needs beyond its buffers (code, threads, dictionaries), for its cgroup limit.
SERVER_OVERHEAD = 512 * MIB
# A benchmark opens its writers, readers and query threads and a few probes: more connections
# than this only widen the worst case.
LEAST_CONNECTION_CAP = 32


@dataclass(frozen=True)
class Budget:
    settings: dict[str, str]  # the settings to apply, memory scaled and capped
    notes: list[str]  # one per setting changed, naming both values
    changes: list[str]  # the same, short, for the verdict
    worst_case: int  # bytes: per-server + per-connection x connections, as applied
    memory_limit: int  # bytes for the server's cgroup; 0 when the free memory is unknown


def memory_names(family: str) -> set[str]:
    return set(PER_SERVER.get(family, [])) | set(PER_CONNECTION.get(family, []))


# How a rerun treats an applied setting, the one answer the budget and the entry page read.
COUNTED = "counted"  # memory the budget counts: scaled 1/k, the whole kept within the budget
HELD = "held"  # memory the budget does not count: at most the server's default
CAPPED = "capped"  # a count that sizes memory: at most CAPS' ceiling
AS_DECLARED = "as declared"


def treatment(name: str, family: str) -> str:
    if name in memory_names(family):
        return COUNTED
    if name in UNCOUNTED_MEMORY.get(family, ()):
        return HELD
    if name in CAPS.get(family, {}):
        return CAPPED
    return AS_DECLARED


def _bytes(value: str, family: str, key: str) -> int | None:
    # server_options.decide refused every size the grammar cannot read, so this one reads.
    size = size_in_bytes(value, family=family, key=key)
    return size if size > 0 else None


def _default(key: str, family: str, options: dict[str, ServerOption]) -> int:
    if family == POSTGRESQL:
        return POSTGRESQL_DEFAULTS.get(key, 0)
    option = options.get(key)
    return int(option.default) if option and option.default.isdigit() else 0


def memory_budget(
    applied: dict[str, str],
    *,
    family: str,
    options: dict[str, ServerOption],
    scale: int,
    already_scaled: set[str],
    free_memory: int,
    connection_cap: int,
    floors: dict[str, int] | None = None,
) -> Budget:
    """`applied` with every memory setting not in `already_scaled` (the pool and its kin,
    scaled by their rules) scaled 1/`scale`, not below the server's default, max_connections
    at most `connection_cap`, and the whole cut in proportion when its worst case is above
    FREE_SHARE of `free_memory` (0: unknown, no cap), none below its floor: `floors` for the
    settings scaled by a measured rule, else the server's default (or its declared value, if
    smaller)."""
    settings, notes, changes = dict(applied), [], []
    _hold_and_cap(settings, notes, changes, family, options)
    names = [name for name in memory_names(family) if name in options]
    sizes: dict[str, int] = {}
    for key in names:
        declared = _bytes(settings[key], family, key) if key in settings else None
        if declared is None:
            continue  # not declared, or -1 (the server derives it): its default counts
        default = _default(key, family, options)
        size = declared
        if key not in already_scaled and scale > 1:
            size = max(declared // scale, min(declared, default) if default else 1)
            if size != declared:
                settings[key] = size_text(size, family)
                notes.append(
                    f"{key} scaled 1/{scale}: declared {applied[key]}, applied {settings[key]} "
                    f"(not below the server's default {size_text(default, family)})"
                )
                changes.append(f"{key} {applied[key]} -> {settings[key]} (scaled 1/{scale})")
        sizes[key] = size
    connections = _connections(settings, family, options)
    # Only a declared limit is capped: the servers' defaults (151, 100) are already small.
    if "max_connections" in options and "max_connections" in settings:
        asked = settings["max_connections"]
        connections = min(connections, connection_cap)
        settings["max_connections"] = str(connections)
        if str(connections) != asked:
            notes.append(
                f"max_connections capped: declared {asked}, applied {connections} (a benchmark opens a few; each connection "
                "may hold its own buffers)"
            )
            changes.append(f"max_connections {asked} -> {connections} (capped)")

    def worst_case() -> int:
        held = {key: sizes.get(key, _default(key, family, options)) for key in names}
        if (
            family == POSTGRESQL
            and "autovacuum_work_mem" in held
            and not _bytes_or_none(
                settings.get("autovacuum_work_mem"), family, "autovacuum_work_mem"
            )
        ):
            # -1, its default: each autovacuum worker takes maintenance_work_mem.
            held["autovacuum_work_mem"] = held.get("maintenance_work_mem", 0)
        return sum(held[key] * _holders(key, family, connections, settings) for key in held)

    total = worst_case()
    cap = int(free_memory * FREE_SHARE)
    if cap and total > cap and sizes:
        # The largest holders give way first: each setting's share of the worst case (its size
        # times the connections that may hold it) is cut to one level, the highest that fits.
        times = {key: _holders(key, family, connections, settings) for key in sizes}
        floor = {key: _floor(key, size, family, options, floors) for key, size in sizes.items()}
        share = {key: sizes[key] * times[key] for key in sizes}
        fixed = total - sum(share.values())
        level = _level(share, {key: floor[key] * times[key] for key in sizes}, cap - fixed)
        for key, size in sorted(sizes.items()):
            capped = min(size, max(floor[key], level // times[key]))
            if capped < size:
                before = settings[key]
                settings[key] = size_text(capped, family)
                sizes[key] = capped
                notes.append(
                    f"{key} capped: {before} asked, applied {settings[key]} (the server's worst "
                    f"case {size_text(total, family)} was above {FREE_SHARE:.0%} of the "
                    f"worker's free memory {size_text(free_memory, family)})"
                )
                changes.append(f"{key} {before} -> {settings[key]} (capped)")
        total = worst_case()
    limit = min(int(free_memory * 0.75), total + SERVER_OVERHEAD) if free_memory else 0
    return Budget(settings, notes, changes, total, limit)


def _bytes_or_none(value: str | None, family: str, key: str) -> int | None:
    return None if value is None else _bytes(value, family, key)


def _hold_and_cap(
    settings: dict[str, str],
    notes: list[str],
    changes: list[str],
    family: str,
    options: dict[str, ServerOption],
) -> None:
    """Memory the budget does not count held at the server's default, counts that size
    memory capped (CAPS), each said in the notes with both values."""
    for key in [key for key in settings if treatment(key, family) == HELD]:
        size, default = (
            size_in_bytes(settings[key], family=family, key=key),
            _default(key, family, options),
        )
        if size <= default:
            continue
        asked = settings.pop(key)
        if default:
            settings[key] = size_text(default, family)
        applied = settings.get(key, "the server's default")
        notes.append(
            f"{key} held at the server's default: declared {asked}, applied {applied} (the "
            "memory budget does not count it)"
        )
        changes.append(f"{key} {asked} -> {applied} (held at the server's default)")
    for key, (ceiling, why) in CAPS.get(family, {}).items():
        if key in settings and float(settings[key]) > ceiling:
            asked, settings[key] = settings[key], f"{ceiling:g}"
            notes.append(f"{key} capped: declared {asked}, applied {ceiling:g} (it {why})")
            changes.append(f"{key} {asked} -> {ceiling:g} (capped)")


# PostgreSQL's processes beside the connections, and their defaults: a background or parallel
# worker takes work_mem as a connection does, each autovacuum worker autovacuum_work_mem.
POSTGRESQL_WORKERS = {"max_worker_processes": 8, "autovacuum_max_workers": 3}


def _holders(key: str, family: str, connections: int, settings: dict[str, str]) -> int:
    """How many of `key` the server may hold at once: per connection (and, in PostgreSQL, per
    background worker too), per autovacuum worker, or once."""
    each = PER_CONNECTION.get(family, []).count(key)
    if each:
        return each * (connections + _workers("max_worker_processes", family, settings))
    if family == POSTGRESQL and key == "autovacuum_work_mem":
        return _workers("autovacuum_max_workers", family, settings)
    return 1


def _workers(key: str, family: str, settings: dict[str, str]) -> int:
    if family != POSTGRESQL:
        return 0
    return int(float(settings.get(key, POSTGRESQL_WORKERS[key])))


def _floor(
    key: str,
    size: int,
    family: str,
    options: dict[str, ServerOption],
    floors: dict[str, int] | None,
) -> int:
    """The least a cap leaves: a measured rule's floor, else the server's default (or the
    declared size, if smaller)."""
    default = _default(key, family, options)
    return (floors or {}).get(key) or (min(size, default) if default else 64 << 10)


def _level(share: dict[str, int], least: dict[str, int], room: int) -> int:
    """The highest level L with sum(min(share, max(least, L))) <= room (bisection)."""
    low, high = 0, max(share.values())
    while high - low > 1:
        middle = (low + high) // 2
        used = sum(min(share[key], max(least[key], middle)) for key in share)
        low, high = (middle, high) if used <= room else (low, middle)
    return low


def _connections(settings: dict[str, str], family: str, options: dict[str, ServerOption]) -> int:
    value = settings.get("max_connections")
    if value is not None and value.isdigit():
        return int(value)
    if family == POSTGRESQL:
        return POSTGRESQL_DEFAULTS["max_connections"]
    return _default("max_connections", family, options) or 151
