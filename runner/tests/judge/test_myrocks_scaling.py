"""MyRocks' memory at 1/k (runner/judge/scaling.py): its block cache and its memtables' total scaled
1/k, a declared 0 (no memtable limit of its own) scaled as RocksDB's 64 MB memtable, neither
below its floor; both counted in the server's worst case (memory_budget)."""

from runner.judge.memory_budget import PER_SERVER
from runner.judge.scaling import MEMORY_RULES, memory_for_scale, rerun_settings
from runner.judge.server_options import NUMBER, ServerOption
from submissions.setup.server_settings import MYSQL

MIB = 1 << 20


def scaled(declared: dict[str, str], scale: int) -> dict[str, str]:
    return memory_for_scale(declared, family=MYSQL, scale=scale, memory_gb=0).settings


def test_the_block_cache_is_divided_by_k():
    assert scaled({"rocksdb_block_cache_size": "512M"}, 8) == {"rocksdb_block_cache_size": "64M"}
    assert scaled({"rocksdb_block_cache_size": "512M"}, 1) == {"rocksdb_block_cache_size": "512M"}


def test_no_cache_goes_below_its_floor():
    assert scaled({"rocksdb_block_cache_size": "64M"}, 100) == {"rocksdb_block_cache_size": "8M"}
    assert scaled({"rocksdb_db_write_buffer_size": "64M"}, 100) == {
        "rocksdb_db_write_buffer_size": "4M"
    }


def test_a_declared_zero_memtable_limit_is_scaled_as_rocksdbs_own_64_mb():
    memory = memory_for_scale(
        {"rocksdb_db_write_buffer_size": "0"}, family=MYSQL, scale=8, memory_gb=0
    )
    assert memory.settings == {"rocksdb_db_write_buffer_size": "8M"}
    assert "0: no limit of its own, 64M memtables" in memory.notes[0]
    # Unscaled, the claim's own value stays.
    assert scaled({"rocksdb_db_write_buffer_size": "0"}, 1) == {
        "rocksdb_db_write_buffer_size": "64M"
    }


def test_myrocks_memory_is_not_made_up_from_the_declared_ram():
    settings = memory_for_scale({}, family=MYSQL, scale=10, memory_gb=16).settings
    assert "innodb_buffer_pool_size" in settings  # InnoDB's pool from the RAM, as before
    assert not any(key.startswith("rocksdb_") for key in settings)
    assert MEMORY_RULES[MYSQL]["rocksdb_block_cache_size"].ram_share == 0


def test_both_count_in_the_servers_worst_case_and_are_capped_within_the_budget():
    assert {"rocksdb_block_cache_size", "rocksdb_db_write_buffer_size"} <= set(PER_SERVER[MYSQL])
    options = {
        name: ServerOption(name, NUMBER, default=default)
        for name, default in (
            ("rocksdb_block_cache_size", "536870912"),
            ("rocksdb_db_write_buffer_size", "0"),
            ("max_connections", "151"),
        )
    }
    asked = rerun_settings(
        {"rocksdb_block_cache_size": "64G", "rocksdb_db_write_buffer_size": "0"},
        entry_family=MYSQL,
        server_family=MYSQL,
        scale=2,
        memory_gb=0,
        options=options,
        free_memory=1 << 30,  # 1 GB free: the worst case must fit in half of it
    )
    assert asked.applied["rocksdb_db_write_buffer_size"] == "32M"
    cache = asked.applied["rocksdb_block_cache_size"]
    assert cache.endswith(("K", "M")) and "rocksdb_block_cache_size" in " ".join(asked.changes)
    assert any("capped" in change for change in asked.changes), asked.changes
