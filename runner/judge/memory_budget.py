"""The memory a verification's private server may use: every memory-sized setting scaled 1/k
with the run (the buffer pool and its kin by their measured rules in scaling.py, the others
plainly), the connection limit capped to what a benchmark needs, and the server's worst case
(per-server buffers plus per-connection buffers times the connections) kept below a share of
the worker's free memory. Pure: settings and the server's option table in, settings and notes
naming both values out.
"""

from __future__ import annotations

from dataclasses import dataclass

from runner.judge.server_options import ServerOption
from submissions.setup.server_settings import MYSQL, POSTGRESQL, BadSize, size_in_bytes, size_text

MIB = 1 << 20

# Memory each server holds once, and memory each connection may hold (its own sort, join,
# read and temporary-table buffers, its stack). Exact names: only those the server lists count.
PER_SERVER = {
    MYSQL: [
        "innodb_buffer_pool_size",
        "key_buffer_size",
        "aria_pagecache_buffer_size",
        "innodb_log_buffer_size",
        "query_cache_size",
        "innodb_ft_total_cache_size",
        "myisam_sort_buffer_size",
        "aria_sort_buffer_size",
        "innodb_sort_buffer_size",
        # MyRocks' (its plugin loaded): the block cache and the memtables' total.
        "rocksdb_block_cache_size",
        "rocksdb_db_write_buffer_size",
    ],
    POSTGRESQL: ["shared_buffers", "wal_buffers", "maintenance_work_mem", "autovacuum_work_mem"],
}
PER_CONNECTION = {
    # What a connection allocates as it runs a statement. Limits only reached by rare statements
    # (max_allowed_packet, max_heap_table_size, bulk_insert_buffer_size for MyISAM) are left
    # out: counted for every connection they would call every default server too big.
    MYSQL: [
        "sort_buffer_size",
        "join_buffer_size",
        "read_buffer_size",
        "read_rnd_buffer_size",
        "tmp_table_size",
        "binlog_cache_size",
        "net_buffer_length",
        "thread_stack",
    ],
    # A query's sort and its hash table may each take work_mem (hash_mem_multiplier 2).
    POSTGRESQL: ["work_mem", "work_mem", "temp_buffers"],
}
# PostgreSQL's --describe-config gives no defaults: its documented ones, in bytes.
POSTGRESQL_DEFAULTS = {
    "shared_buffers": 128 * MIB,
    "wal_buffers": 4 * MIB,
    "maintenance_work_mem": 64 * MIB,
    "autovacuum_work_mem": 64 * MIB,
    "work_mem": 4 * MIB,
    "temp_buffers": 8 * MIB,
    "max_connections": 100,
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


def _bytes(value: str, family: str, key: str) -> int | None:
    try:
        size = size_in_bytes(value, family=family, key=key)
    except BadSize:
        return None
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
        once = sum(held[key] for key in PER_SERVER.get(family, []) if key in held)
        each = sum(held[key] for key in PER_CONNECTION.get(family, []) if key in held)
        return once + each * connections

    total = worst_case()
    cap = int(free_memory * FREE_SHARE)
    if cap and total > cap and sizes:
        # The largest holders give way first: each setting's share of the worst case (its size
        # times the connections that may hold it) is cut to one level, the highest that fits.
        times = {key: _holders(key, family, connections) for key in sizes}
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


def _holders(key: str, family: str, connections: int) -> int:
    return PER_CONNECTION.get(family, []).count(key) * connections or 1


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
