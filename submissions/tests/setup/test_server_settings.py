"""Reading a declared my.cnf / postgresql.conf into settings, the allow-list, and the memory
of a scaled rerun. Pure functions: no database."""

import pytest

from runner.judge.scaling import MEMORY_RULES, max_scale, memory_for_scale, scaled_size
from submissions.setup.server_settings import (
    MYSQL,
    POSTGRESQL,
    BadSize,
    applicable,
    family_of,
    read_config,
    size_in_bytes,
)

MY_CNF = """\
# a 2008 box
[client]
port = 3307

[mysqld]
innodb_buffer_pool_size=128M   # the cliff comes early
innodb-flush-log-at-trx-commit = 2
loose-innodb_file_per_table
set-variable = key_buffer_size=64M
init_file = /etc/mysql/init.sql
plugin-load = "ha_tokudb.so"
datadir=/var/lib/mysql
innodb_flush_method = 'O_DIRECT'
this line is nonsense
!includedir /etc/mysql/conf.d/

[mysqldump]
quick
"""


def settings_of(text: str, family: str = MYSQL) -> dict[str, str]:
    return {s.key: s.value for s in read_config(text, family).settings}


def test_it_reads_the_server_groups_of_a_my_cnf():
    read = settings_of(MY_CNF)
    assert read == {
        "innodb_buffer_pool_size": "128M",
        "innodb_flush_log_at_trx_commit": "2",
        "innodb_file_per_table": "",
        "key_buffer_size": "64M",
        "init_file": "/etc/mysql/init.sql",
        "plugin_load": "ha_tokudb.so",
        "datadir": "/var/lib/mysql",
        "innodb_flush_method": "O_DIRECT",
    }


def test_it_names_the_lines_it_could_not_read():
    skipped = read_config(MY_CNF).skipped
    assert [(s.line, s.reason) for s in skipped] == [
        (14, "not a key = value setting"),
        (15, "an include directive names files"),
    ]


def test_the_last_value_of_a_repeated_option_wins():
    assert settings_of("[mysqld]\nsort_buffer_size=1M\nsort-buffer-size=2M\n") == {
        "sort_buffer_size": "2M"
    }


def test_a_pasted_excerpt_without_a_group_is_the_servers():
    assert settings_of("innodb_buffer_pool_size = 12G\n") == {"innodb_buffer_pool_size": "12G"}


def test_it_reads_postgresql_conf():
    text = "shared_buffers = 128MB\t# min 128kB\neffective_cache_size 4GB\nlisten_addresses = '*'\n"
    assert settings_of(text, POSTGRESQL) == {
        "shared_buffers": "128MB",
        "effective_cache_size": "4GB",
        "listen_addresses": "*",
    }


@pytest.mark.parametrize(
    ("value", "family", "key", "size"),
    [
        ("128M", MYSQL, "", 128 << 20),
        ("12G", MYSQL, "", 12 << 30),
        ("1048576", MYSQL, "", 1 << 20),
        ("128MB", POSTGRESQL, "shared_buffers", 128 << 20),
        ("16384", POSTGRESQL, "shared_buffers", 16384 * 8192),
        ("4096", POSTGRESQL, "work_mem", 4 << 20),
    ],
)
def test_sizes_in_each_servers_units(value, family, key, size):
    assert size_in_bytes(value, family=family, key=key) == size


def test_a_size_that_is_not_one_says_so():
    with pytest.raises(BadSize, match="innodb_buffer_pool_size = 'lots'"):
        size_in_bytes("lots", key="innodb_buffer_pool_size")


def test_the_allow_list_refuses_files_plugins_users_network_and_startup_sql():
    result = applicable(settings_of(MY_CNF), MYSQL)
    assert set(result.applied) == {
        "innodb_buffer_pool_size",
        "innodb_flush_log_at_trx_commit",
        "innodb_file_per_table",
        "key_buffer_size",
        "innodb_flush_method",
    }
    assert result.refused == {
        "init_file": "init_file is refused: it runs SQL at start.",
        "plugin_load": "plugin_load is refused: it loads plugins.",
        "datadir": "datadir is refused: it names files.",
    }


@pytest.mark.parametrize(
    ("key", "family", "reason"),
    [
        ("secure_file_priv", MYSQL, "names files"),
        ("innodb_data_home_dir", MYSQL, "names files"),
        ("some_new_log_file", MYSQL, "names files"),
        ("user", MYSQL, "names users"),
        ("bind_address", MYSQL, "opens the network"),
        ("shared_preload_libraries", POSTGRESQL, "loads plugins"),
        ("data_directory", POSTGRESQL, "names files"),
        ("archive_command", POSTGRESQL, "names files"),
    ],
)
def test_each_refusal_names_the_setting_and_why(key, family, reason):
    assert applicable({key: "x"}, family).refused == {key: f"{key} is refused: it {reason}."}


def test_a_setting_off_the_allow_list_is_not_applied():
    result = applicable({"general_log": "ON", "synchronous_commit": "off"}, MYSQL)
    assert result.applied == {}
    assert "not on the allow-list" in result.refused["general_log"]


@pytest.mark.parametrize(
    ("server", "engine", "family"),
    [
        ("mysql", "InnoDB", MYSQL),
        ("mariadb", "Aria", MYSQL),
        ("percona", "XtraDB", MYSQL),
        ("postgresql", "heap", POSTGRESQL),
        ("sqlite", "", "sqlite"),
        ("other", "PostgreSQL fork", POSTGRESQL),
        ("other", "TokuDB", "other"),
    ],
)
def test_the_family_of_an_entry(server, engine, family):
    assert family_of(server_family=server, storage_engine=engine) == family


def test_a_pool_and_the_pages_it_keeps_free_shrink_together_above_a_fixed_part():
    rule = MEMORY_RULES[MYSQL]["innodb_buffer_pool_size"]
    # 128 MB at 1/10: the page cleaner's 1,536 free pages become 154 and the pool 1 MB +
    # 127 MB / 10 = 13.7 MB, asked in whole MB, as the server runs it.
    assert scaled_size(128 * 2**20, 10, rule) == 14 * 2**20
    assert rule.free_pages(1536, 10) == 154
    assert scaled_size(96 * 2**20, 10, rule) == 11 * 2**20  # 10.5
    assert scaled_size(128 * 2**20, 4, rule) == 33 * 2**20  # 32.75
    # Past the server's least (100 pages), the free pages stop shrinking and the pool keeps
    # them on top of its scaled data: 1 MB + (128 - 1 - 24) MB / 20 + 100 pages = 7.7 MB.
    assert rule.free_pages(1536, 20) == 100
    assert scaled_size(128 * 2**20, 20, rule) == 8 * 2**20
    assert scaled_size(2**30, 100, rule) == 13 * 2**20  # 1 + 999 / 100 + 1.6 = 12.6
    # An entry that set its own free pages has them scaled, not the default; where they
    # would go below the least, the pool keeps the difference: 1 + (128 - 1 - 3.1) / 10 +
    # 100 pages = 15 MB, where 200 pages scaled plainly would give 13.7.
    assert rule.free_pages(3072, 10) == 307
    assert scaled_size(128 * 2**20, 10, rule, depth=3072) == 14 * 2**20  # 13.7 either way
    assert rule.free_pages(200, 10) == 100
    assert scaled_size(128 * 2**20, 10, rule, depth=200) == 15 * 2**20
    assert scaled_size(128 * 2**20, 1, rule) == 128 * 2**20
    assert scaled_size(64 * 2**20, 10, rule) == rule.floor  # 7.3 MB: below the 8 MB floor
    assert scaled_size(64 * 2**20, 1000, rule) == rule.floor


def test_the_largest_scale_keeps_the_pool_at_its_floor():
    limit = max_scale({"innodb_buffer_pool_size": "128M"}, family=MYSQL, memory_gb=16)
    # 1/20 is 7.7 MB, asked as 8; 1/21 is 7.5 MB, asked as 7: below the floor.
    assert limit == (20, "innodb_buffer_pool_size")
    assert max_scale({"innodb_buffer_pool_size": "1G"}, family=MYSQL, memory_gb=16)[0] == 202
    # PostgreSQL's memory is its cgroup, the declared RAM scaled (page_cache.py): 21 MB of
    # headroom plus at least 19 MB, so 16 GB takes 1/861 at most; without a RAM, no limit.
    assert max_scale({}, family=POSTGRESQL, memory_gb=16) == (861, "declared RAM")
    assert max_scale({}, family=POSTGRESQL, memory_gb=0) is None


def test_memory_for_scale_uses_the_declared_settings_then_the_declared_ram():
    declared = {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "2"}
    scaled = memory_for_scale(declared, family=MYSQL, scale=10, memory_gb=16)
    assert scaled.settings == {"innodb_buffer_pool_size": "14M", "innodb_lru_scan_depth": "154"}
    assert (
        "innodb_buffer_pool_size = 14M (declared innodb_buffer_pool_size = 128M, scaled 1/10: "
        "1 MB + (128M - 1 MB) / 10, its free pages (innodb_lru_scan_depth) scaled alike and "
        "at least 100, to the nearest MB)" in scaled.notes
    )
    assert (
        "innodb_lru_scan_depth = 154 (the server's default 1536, scaled 1/10 with "
        "innodb_buffer_pool_size: the pages InnoDB keeps free of data, not below 100)"
        in scaled.notes
    )
    own = memory_for_scale(
        {**declared, "innodb_lru_scan_depth": "3072"}, family=MYSQL, scale=10, memory_gb=16
    )
    assert own.settings == {"innodb_buffer_pool_size": "14M", "innodb_lru_scan_depth": "307"}
    assert "innodb_lru_scan_depth = 307 (declared 3072, scaled 1/10" in own.notes[1]
    # The claim's log prints the value its server ran with: the most precise word on it.
    logged = memory_for_scale(
        {**declared, "innodb_lru_scan_depth": "3072"},
        family=MYSQL,
        scale=10,
        memory_gb=16,
        logged={"innodb_lru_scan_depth": "1024", "innodb_buffer_pool_size": "134217728"},
    )
    assert logged.settings["innodb_lru_scan_depth"] == "102"
    assert "innodb_lru_scan_depth = 102 (the claim's log 1024, scaled 1/10" in logged.notes[1]
    unscaled = memory_for_scale(declared, family=MYSQL, scale=1, memory_gb=16)
    assert unscaled.settings == {"innodb_buffer_pool_size": "128M"}  # the server's own depth
    from_ram = memory_for_scale({}, family=POSTGRESQL, scale=1, memory_gb=16)
    assert from_ram.settings == {"shared_buffers": "4096MB", "effective_cache_size": "12288MB"}
    assert "25% of the declared 16 GB RAM" in from_ram.notes[0]


def test_memory_never_takes_more_than_half_the_hosts():
    scaled = memory_for_scale(
        {"innodb_buffer_pool_size": "12G"}, family=MYSQL, scale=1, memory_gb=16, host_memory_gb=8
    )
    assert scaled.settings == {"innodb_buffer_pool_size": "4096M"}
    assert "capped at 4096M: half of this host's 8 GB" in scaled.notes[0]
