"""One size grammar, held over the installed servers' own option tables (issue 40).

Which: the pure decision over the full table, then a read-back of a representative subset at
server start.

- The table: every memory-sized option the installed MariaDB and PostgreSQL list (found by
  name in mariadbd's own --help, and by PostgreSQL's own units in pg_settings, not by the
  code's lists) x every size suffix in each case, negative, huge and unreadable values, and
  every alias, each through `rerun_settings` as a verification runs it (scale 1/10, a worker
  with 512 MiB free): refused naming the setting and its value, or applied at most a tenth of
  the declaration (or the server's default, or the scaling rule's floor) and never above the
  budget's share of the free memory. The counts that size PostgreSQL's shared memory or
  multiply work_mem are capped.
- The read-back: one private MariaDB and one private PostgreSQL, started once each with the
  hostile subset as a rerun would apply it (key_buffer_size=1E, tmp_memory_table_size=64G,
  sort_mem=1TB, max_locks_per_transaction=100000...): every value the server reads back is
  the one applied, the alias did not override the scaled setting, and PostgreSQL's shared
  memory stays near its buffers."""

from __future__ import annotations

import math
import os
import re
import tempfile
import time

import pytest

from runner import servers
from runner.judge.memory_budget import FREE_SHARE, POSTGRESQL_DEFAULTS
from runner.judge.scaling import MEMORY_RULES, rerun_settings, setting_fates
from runner.judge.server_options import NUMBER, decide
from runner.option_tables import described_options
from submissions.setup.server_settings import MYSQL, POSTGRESQL

MIB, GIB = 1 << 20, 1 << 30
SCALE = 10
FREE = 512 * MIB
# A scaled size may exceed declared/k by the InnoDB rule's fixed MB, its free pages and its
# whole-MB step; nothing else adds to it.
SLACK = 4 * MIB

# MariaDB's options whose names say a size, that are not memory the server allocates (each
# said why); every other such option is checked.
MARIADB_NOT_MEMORY = {
    "aria_block_size": "a page's size on disk",
    "aria_max_sort_file_size": "a temporary file's size on disk",
    "aria_pagecache_age_threshold": "a count of hits",
    "aria_pagecache_division_limit": "a percentage",
    "aria_pagecache_file_hash_size": "a count of hash buckets",
    "innodb_change_buffer_max_size": "a percentage of the pool",
    "innodb_ft_max_token_size": "characters of a word",
    "innodb_ft_min_token_size": "characters of a word",
    "innodb_log_write_ahead_size": "an I/O's size",
    "innodb_max_undo_log_size": "a file's size on disk",
    "innodb_online_alter_log_max_size": "a temporary file's size on disk",
    "innodb_page_size": "a page's size, fixed when the data directory was made",
    "innodb_purge_batch_size": "a count of pages",
    "key_cache_age_threshold": "a count of hits",
    "key_cache_block_size": "a block's size",
    "key_cache_division_limit": "a percentage",
    "key_cache_file_hash_size": "a count of hash buckets",
    "key_cache_segments": "a count",
    "max_sort_length": "bytes of a key compared",
    "myisam_block_size": "a block's size",
    "myisam_data_pointer_size": "a pointer's bytes",
    "myisam_max_sort_file_size": "a temporary file's size on disk",
    "query_cache_min_res_unit": "a block's size",
    "table_definition_cache": "a count of tables",
    "table_open_cache": "a count of tables",
    "thread_cache_size": "a count of threads",
    "thread_pool_size": "a count of thread groups",
    "thread_pool_stall_limit": "milliseconds",
}
_MARIADB_SIZE_NAME = re.compile(r"(size|buffer|_length$|packet|_limit$|memory|stack$|cache)")
# PostgreSQL's size parameters that are not memory its processes allocate.
POSTGRESQL_NOT_MEMORY = {
    "effective_cache_size": "the planner's estimate of the OS cache, not allocated",
    "backend_flush_after": "pages written before a flush is asked",
    "bgwriter_flush_after": "pages written before a flush is asked",
    "checkpoint_flush_after": "pages written before a flush is asked",
    "wal_writer_flush_after": "WAL written before a flush is asked",
    "max_wal_size": "WAL on disk",
    "min_wal_size": "WAL on disk",
    "wal_skip_threshold": "a table's size, for WAL or fsync",
    "min_parallel_index_scan_size": "the planner's threshold",
    "min_parallel_table_scan_size": "the planner's threshold",
}
# What a PostgreSQL size without a unit counts in (pg_settings.unit).
PG_UNIT_BYTES = {"B": 1, "kB": 1 << 10, "MB": 1 << 20, "8kB": 8 << 10}
PG_SUFFIX_BYTES = {"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}
# The counts a declaration may blow up and the most anything should be given (a benchmark
# opens tens of connections to one table).
POSTGRESQL_COUNTS = {
    "max_locks_per_transaction": 1024,
    "max_pred_locks_per_transaction": 1024,
    "max_prepared_transactions": 64,
    "max_worker_processes": 64,
    "max_parallel_workers": 64,
    "max_parallel_workers_per_gather": 64,
    "max_parallel_maintenance_workers": 64,
    "autovacuum_max_workers": 16,
    "hash_mem_multiplier": 4,
    "max_connections": 64,
}


def mariadb_values() -> list[str]:
    suffixes = ["", "k", "K", "m", "M", "g", "G", "t", "T", "p", "P", "e", "E"]
    values = [f"{number}{suffix}" for number in (1, 64) for suffix in suffixes]
    huge = ["16E", "18446744073709551615", "18446744073709551616", "99999999999999999999E"]
    return [*values, "0", "-1", "-64M", *huge, "1.5G", "12X", "1KB", "lots", ""]


def postgresql_values() -> list[str]:
    suffixes = ["", "B", "kB", "MB", "GB", "TB", "b", "kb", "mb", "gb", "tb", " MB"]
    values = [f"{number}{suffix}" for number in (1, 64) for suffix in suffixes]
    huge = ["99999TB", "2147483647", "2147483648", "1073741824GB"]
    return [*values, "0", "-1", "-1MB", *huge, "1.5GB", "1PB", "12X", "lots"]


@pytest.fixture(scope="module")
def base_dir():
    with tempfile.TemporaryDirectory(prefix="sz-", dir="/tmp") as folder:
        os.chmod(folder, 0o755)  # noqa: S103 - the servers' users must reach their directories
        yield folder


@pytest.fixture(scope="module")
def mariadb_options():
    return described_options(servers.ServerConfig(kind="mariadb", base_dir=tempfile.gettempdir()))


@pytest.fixture(scope="module")
def postgresql_options():
    config = servers.ServerConfig(kind="postgresql", base_dir=tempfile.gettempdir())
    return described_options(config)


def started(base_dir: str, kind: str, applied: dict[str, str]):
    config = servers.ServerConfig(kind=kind, base_dir=base_dir)
    server = servers.PrivateServer(config, f"sizes-{kind}", settings=applied)
    server.__enter__()
    try:
        server.initialize()
        server.start()
        assert server.wait_until_answering(deadline=time.monotonic() + 90) is None
    except BaseException:
        server.remove()
        raise
    return server


@pytest.fixture(scope="module")
def postgresql_units(base_dir):
    """Every size parameter of the installed PostgreSQL with its unit and default in bytes, from
    a private server's pg_settings (the server's own word, not the code's table)."""
    server = started(base_dir, "postgresql", {})
    try:
        with server._connect(None) as connection:
            rows = connection.execute(
                "SELECT name, unit, boot_val FROM pg_settings "
                "WHERE unit IN ('B', 'kB', 'MB', '8kB') AND context <> 'internal'"
            ).fetchall()
    finally:
        server.remove()
    units = {
        name: (PG_UNIT_BYTES[unit], int(boot) * PG_UNIT_BYTES[unit]) for name, unit, boot in rows
    }
    # -1: the server derives it (autovacuum_work_mem from maintenance_work_mem, wal_buffers
    # from shared_buffers, at most 16 MB).
    derived = {"autovacuum_work_mem": units["maintenance_work_mem"][1], "wal_buffers": 16 * MIB}
    return {
        name: (unit, derived.get(name, boot) if boot < 0 else boot)
        for name, (unit, boot) in units.items()
    }


def mariadb_bytes(value: str) -> int:
    number, suffix = re.fullmatch(r"\s*(-?\d+)([kmgtpeKMGTPE]?)\s*", value).groups()
    return int(number) << (10 * "kmgtpe".find(suffix.lower()) + 10 if suffix else 0)


def postgresql_bytes(value: str, unit: int) -> int:
    number, suffix = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value).groups()
    return round(float(number) * (PG_SUFFIX_BYTES[suffix.lower()] if suffix else unit))


def bound(declared: int, default: int, floor: int) -> int:
    """The most a memory setting declared so may be given at 1/SCALE on a worker with FREE."""
    scaled = min(math.ceil(declared / SCALE) + SLACK, int(FREE * FREE_SHARE))
    return max(scaled, default, floor)


def rerun(declared: dict[str, str], family: str, options):
    return rerun_settings(
        declared,
        entry_family=family,
        server_family=family,
        scale=SCALE,
        memory_gb=0,
        options=options,
        free_memory=FREE,
    )


def assert_refused_naming(result, key: str, value: str) -> None:
    message = result.refused[key]
    assert message.startswith(key) and (repr(value) in message or "same server" in message)


def mariadb_sizes(options) -> list[str]:
    return sorted(
        name
        for name, option in options.items()
        if option.kind == NUMBER
        and _MARIADB_SIZE_NAME.search(name)
        and (option.alias_of or name) not in MARIADB_NOT_MEMORY  # table_cache: a count too
        and decide({name: "1"}, options, MYSQL).applied  # refused whatever its value: not run
    )


def test_every_mariadb_memory_size_by_every_suffix_is_scaled_and_bounded_or_refused(
    mariadb_options,
):
    names = mariadb_sizes(mariadb_options)
    assert {"key_buffer_size", "tmp_memory_table_size", "max_heap_table_size"} <= set(names)
    assert len(names) > 30, names
    checked = refused = 0
    for key in names:
        for value in mariadb_values():
            result = rerun({key: value}, MYSQL, mariadb_options)
            if key in result.refused:
                assert_refused_naming(result, key, value)
                refused += 1
                continue
            name = result.renamed.get(key, key)
            assert (name in mariadb_options and key not in result.applied) or name == key
            declared = mariadb_bytes(value)
            assert 0 <= declared < 1 << 64, (key, value)
            if name not in result.applied:
                continue  # held at the server's default by not being given
            default = int(mariadb_options[name].default or 0)
            rule = MEMORY_RULES[MYSQL].get(name)
            # The server's default is what every default server runs with (an address space
            # reserved, as innodb_buffer_pool_size_max's 8 TB, included).
            most = bound(declared, default, rule.floor if rule else 0)
            got = mariadb_bytes(result.applied[name])
            assert got <= most, (key, value, result.applied[name], result.notes)
            checked += 1
    print(f"MariaDB: {len(names)} sizes, {checked} applied bounded, {refused} refused")
    assert checked > 500 and refused > 200


def test_every_postgresql_memory_size_by_every_unit_is_scaled_and_bounded_or_refused(
    postgresql_options, postgresql_units
):
    assert {"work_mem", "shared_buffers", "min_dynamic_shared_memory"} <= set(postgresql_units)
    checked = refused = 0
    for key, (unit, default) in sorted(postgresql_units.items()):
        if key in POSTGRESQL_NOT_MEMORY:
            continue
        for value in postgresql_values():
            result = rerun({key: value}, POSTGRESQL, postgresql_options)
            if key in result.refused:
                assert_refused_naming(result, key, value)
                refused += 1
                continue
            declared = postgresql_bytes(value, unit)
            if declared < 0:
                assert result.applied[key] in ("-1", "-1MB"), (key, value)  # the server's own
                continue
            if key not in result.applied:
                continue
            rule = MEMORY_RULES[POSTGRESQL].get(key)
            most = bound(declared, max(default, 0), rule.floor if rule else 0)
            got = postgresql_bytes(result.applied[key], unit)
            assert got <= most, (key, value, result.applied[key], result.notes)
            checked += 1
    print(f"PostgreSQL: {checked} applied bounded, {refused} refused")
    assert checked > 100 and refused > 100


def test_postgresql_counts_that_size_shared_memory_are_capped(postgresql_options):
    for key, most in POSTGRESQL_COUNTS.items():
        for value in ("1000", "100000", "262143"):
            result = rerun({key: value}, POSTGRESQL, postgresql_options)
            if key in result.refused:
                continue  # past the server's own maximum
            assert float(result.applied[key]) <= most, (key, value, result.applied[key])
            assert any(key in change for change in result.changes), result.changes


def test_every_alias_is_applied_under_the_budgets_name_and_never_overrides_it(
    mariadb_options, postgresql_options
):
    aliases = {name: o.alias_of for name, o in mariadb_options.items() if o.alias_of}
    assert aliases["tmp_memory_table_size"] == "tmp_table_size"
    assert "tmp_table_size" not in aliases  # the budget's name is the name
    for alias, name in aliases.items():
        result = rerun({name: "1", alias: "2"}, MYSQL, mariadb_options)
        assert alias not in result.applied, alias
        assert result.renamed.get(alias) == name or alias in result.refused
    result = rerun(
        {"tmp_table_size": "64M", "tmp_memory_table_size": "64G"}, MYSQL, mariadb_options
    )
    assert "tmp_memory_table_size" not in result.applied
    assert mariadb_bytes(result.applied["tmp_table_size"]) <= bound(64 * GIB, 16 * MIB, 0)
    assert "sets the same server variable" in result.refused["tmp_table_size"]
    result = rerun({"work_mem": "4MB", "sort_mem": "1TB"}, POSTGRESQL, postgresql_options)
    assert "sort_mem" not in result.applied and result.renamed["sort_mem"] == "work_mem"
    assert postgresql_bytes(result.applied["work_mem"], 1024) <= bound(1 << 40, 4 * MIB, 0)


def test_the_entry_page_says_what_the_rerun_does(mariadb_options, postgresql_options):
    """The page's sentence for each setting, decided by the rerun's own decision and budget."""
    declared = {
        "key_buffer_size": "1E",
        "sort_buffer_size": "16E",
        "tmp_memory_table_size": "64G",
        "max_heap_table_size": "64G",
        "innodb_flush_log_at_trx_commit": "2",
    }
    fates = setting_fates(declared, options=mariadb_options, family=MYSQL)
    result = rerun(declared, MYSQL, mariadb_options)
    for key, fate in fates.items():
        assert fate.applied == (key not in result.refused), (key, fate)
    assert fates["key_buffer_size"].sentence.startswith("applied, scaled 1/k")
    assert "larger than the server can read" in fates["sort_buffer_size"].sentence
    assert fates["tmp_memory_table_size"].sentence.startswith("applied as tmp_table_size, scaled")
    assert fates["max_heap_table_size"].sentence == (
        "applied as 16M, the server's default (the memory budget does not count it)"
    )
    assert result.applied["max_heap_table_size"] == "16M"
    assert fates["innodb_flush_log_at_trx_commit"].sentence == "applied"
    fates = setting_fates(
        {"max_locks_per_transaction": "100000"}, options=postgresql_options, family=POSTGRESQL
    )
    sentence = fates["max_locks_per_transaction"].sentence
    assert sentence.startswith("applied as 256, capped")
    result = rerun({"max_locks_per_transaction": "100000"}, POSTGRESQL, postgresql_options)
    assert result.applied["max_locks_per_transaction"] == "256"


MARIADB_HOSTILE = {
    "key_buffer_size": "1E",
    "tmp_table_size": "64M",
    "tmp_memory_table_size": "64G",
    "max_heap_table_size": "64G",
    "sort_buffer_size": "1T",
    "innodb_buffer_pool_size": "1P",
    "innodb_log_buffer_size": "4G",
    "query_cache_size": "1G",
    "join_buffer_size": "-1",
    "aria_pagecache_buffer_size": "16E",
    "max_allowed_packet": "1G",
}
POSTGRESQL_HOSTILE = {
    "shared_buffers": "64GB",
    "work_mem": "4mb",
    "sort_mem": "1TB",
    "maintenance_work_mem": "1TB",
    "min_dynamic_shared_memory": "64GB",
    "hash_mem_multiplier": "1000",
    "max_locks_per_transaction": "100000",
    "max_pred_locks_per_transaction": "100000",
    "max_worker_processes": "1000",
    "autovacuum_max_workers": "200",
    "max_prepared_transactions": "10000",
    "logical_decoding_work_mem": "4GB",
    "temp_buffers": "1PB",
}


def test_mariadb_reads_back_the_hostile_sizes_as_applied(base_dir, mariadb_options):
    result = rerun(MARIADB_HOSTILE, MYSQL, mariadb_options)
    assert {"join_buffer_size", "aria_pagecache_buffer_size", "tmp_table_size"} <= set(
        result.refused
    )
    server = started(base_dir, "mariadb", result.applied)
    try:
        read_back = server.read_settings([*result.applied, "tmp_memory_table_size"])
    finally:
        server.remove()
    declared = {
        result.renamed.get(k, k): v for k, v in MARIADB_HOSTILE.items() if k not in result.refused
    }
    for key, value in result.applied.items():
        if key not in declared:
            continue  # innodb_lru_scan_depth, scaled with the pool: pages, not a size
        got, asked = int(read_back[key]), mariadb_bytes(value)
        # The server rounds some buffers down to its block or page.
        assert asked - 64 * 1024 <= got <= asked, (key, value, got)
        assert got <= bound(mariadb_bytes(declared[key]), 128 * MIB, 8 * MIB), key
    # One variable under two names: the alias did not override the scaled tmp_table_size.
    assert read_back["tmp_memory_table_size"] == read_back["tmp_table_size"]
    assert int(read_back["tmp_table_size"]) <= int(FREE * FREE_SHARE)
    assert int(read_back["key_buffer_size"]) <= int(FREE * FREE_SHARE)


def test_postgresql_reads_back_the_hostile_settings_and_its_shared_memory_stays_small(
    base_dir, postgresql_options, postgresql_units
):
    result = rerun(POSTGRESQL_HOSTILE, POSTGRESQL, postgresql_options)
    server = started(base_dir, "postgresql", result.applied)
    try:
        read_back = server.read_settings([*result.applied, "shared_memory_size"])
        with server._connect(None) as connection:
            raw = dict(
                connection.execute(
                    "SELECT name, setting FROM pg_settings WHERE name = ANY(%s)",
                    [list(result.applied)],
                ).fetchall()
            )
    finally:
        server.remove()
    for key, value in result.applied.items():
        if key in postgresql_units:
            unit = postgresql_units[key][0]
            asked = postgresql_bytes(value, unit)
            assert abs(int(raw[key]) * unit - asked) <= unit, (key, value, raw[key])
        else:
            assert float(raw[key]) == float(value), (key, value, raw[key])
    for key, most in POSTGRESQL_COUNTS.items():
        if key in raw:
            assert float(raw[key]) <= most, (key, raw[key])
    buffers = sum(
        int(raw[key]) * postgresql_units[key][0]
        for key in ("shared_buffers", "wal_buffers", "min_dynamic_shared_memory")
        if key in raw
    )
    buffers += POSTGRESQL_DEFAULTS["wal_buffers"] if "wal_buffers" not in raw else 0
    # Shared memory beyond the buffers: lock tables, process slots (2.87 GB unscaled).
    shared = int(read_back["shared_memory_size"].removesuffix("MB")) * MIB
    print(f"PostgreSQL shared memory {shared / MIB:.0f} MB, its buffers {buffers / MIB:.0f} MB")
    assert shared <= buffers + 96 * MIB, (shared, buffers, read_back)
