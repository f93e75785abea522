"""MyRocks on a private MariaDB server: the server loads the plugin only when a run asks for
ROCKSDB, the option table read with the plugin lists (and judges) its rocksdb_* settings, the C
benchmark creates its table and indexes in ROCKSDB and prints the engine and MyRocks' memory
settings, and a server without the engine makes the benchmark stop rather than run InnoDB under
MyRocks' name."""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import time

import pytest
from django.conf import settings

from runner import servers
from runner.judge.server_options import decide
from runner.option_tables import described_options, options_kept, setting_decisions
from submissions.setup.server_settings import MYSQL

ROCKSDB = servers.ServerConfig(
    kind="mariadb", base_dir=tempfile.gettempdir(), plugins=("ha_rocksdb.so",)
)


def test_a_run_asks_the_plugin_only_for_rocksdb():
    assert servers.plugins_for_engine("ROCKSDB") == ("ha_rocksdb.so",)
    assert servers.plugins_for_engine("rocksdb") == ("ha_rocksdb.so",)
    for built_in in ("InnoDB", "Aria", "MyISAM", None, ""):
        assert servers.plugins_for_engine(built_in) == ()
    assert servers.server_config("mariadb", "ROCKSDB").plugins == ("ha_rocksdb.so",)
    assert servers.server_config("mariadb", "InnoDB").plugins == ()


def test_the_mariadb_target_offers_rocksdb_where_the_plugin_is_installed():
    from runner.targets import rerun_targets

    target = rerun_targets()["mariadb"]
    assert "ROCKSDB" in target.engines
    assert target.verification_refusal(family="mysql", engine="MyRocks") is None
    assert target.verification_refusal(family="mysql", engine="ROCKSDB") is None
    assert "no TokuDB engine" in target.verification_refusal(family="mysql", engine="TokuDB")


def test_the_option_table_with_the_plugin_lists_and_judges_myrocks_settings():
    plain = described_options(servers.ServerConfig(kind="mariadb", base_dir=ROCKSDB.base_dir))
    loaded = described_options(ROCKSDB)
    assert "rocksdb_block_cache_size" not in plain
    assert {"rocksdb_block_cache_size", "rocksdb_db_write_buffer_size"} <= set(loaded)
    declared = {
        "rocksdb_block_cache_size": "64M",
        "rocksdb_db_write_buffer_size": "16M",
        "rocksdb_flush_log_at_trx_commit": "2",
        "rocksdb_wal_dir": "/tmp/elsewhere",
        "rocksdb_bulk_load": "ON",
        "rocksdb_debug_ttl_rec_ts": "5",
        "rocksdb_block_cache_siz": "64M",
        "rocksdb": "FORCE",
        "rocksdb_default_cf_options": "write_buffer_size=1m",
    }
    decision = decide(declared, loaded, MYSQL)
    assert decision.applied == {
        "rocksdb_block_cache_size": "64M",
        "rocksdb_db_write_buffer_size": "16M",
        "rocksdb_flush_log_at_trx_commit": "2",
    }
    refused = decision.refused
    assert "free text" in refused["rocksdb_wal_dir"]
    assert "bulk load" in refused["rocksdb_bulk_load"]
    assert "debugging aid" in refused["rocksdb_debug_ttl_rec_ts"]
    assert "abbreviation of rocksdb_block_cache_size" in refused["rocksdb_block_cache_siz"]
    assert "turns a plugin" in refused["rocksdb"]
    assert "free text" in refused["rocksdb_default_cf_options"]
    # Without the plugin the same setting is not an option of the server at all.
    assert "not an option" in decide(declared, plain, MYSQL).refused["rocksdb_block_cache_size"]


def _benchmark(server: servers.PrivateServer, *arguments: str) -> subprocess.CompletedProcess:
    binary = str(settings.IIBENCH_BINARY)
    return subprocess.run(
        [binary, "--db", server.url, "--rows", "3000", "--report-every", "1000", *arguments],
        env={**os.environ, **server.client_environment()},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@contextlib.contextmanager
def answering(recovery_dir: str, label: str, settings: dict[str, str], plugins=()):
    """A private MariaDB server, answering, with the benchmark's database."""
    config = servers.ServerConfig(kind="mariadb", base_dir=recovery_dir, plugins=plugins)
    with servers.PrivateServer(config, label, settings=settings) as server:
        server.initialize()
        server.start()
        assert server.wait_until_answering(deadline=time.monotonic() + 60) is None
        server.create_database()
        yield server


def test_the_c_benchmark_runs_on_myrocks_in_a_private_server(recovery_dir):
    cache = {"rocksdb_block_cache_size": "16M"}
    with answering(recovery_dir, "rocks", cache, plugins=("ha_rocksdb.so",)) as server:
        assert server.read_settings(["rocksdb_block_cache_size"]) == {
            "rocksdb_block_cache_size": str(16 << 20)
        }
        done = _benchmark(server, "--engine", "ROCKSDB")
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert "# param engine=ROCKSDB" in lines
        assert "# table_engine ROCKSDB" in lines
        # Its three secondary indexes, read back from the catalog, and its memory settings.
        assert sum(line.startswith("# index ") for line in lines) == 4
        assert f"# setting rocksdb_block_cache_size changed {16 << 20}" in lines
        assert any(line.startswith("# setting rocksdb_db_write_buffer_size ") for line in lines)
        assert "status=completed rows=3000" in lines[-1]
        assert server.count_rows() == 3000


def test_a_server_without_the_engine_stops_the_benchmark_instead_of_substituting(recovery_dir):
    """With NO_ENGINE_SUBSTITUTION off the server would quietly create an InnoDB table."""
    with answering(recovery_dir, "norocks", {"sql_mode": "STRICT_TRANS_TABLES"}) as server:
        done = _benchmark(server, "--engine", "ROCKSDB")
        assert done.returncode != 0
        assert "# table_engine InnoDB" in done.stdout.splitlines()
        assert "has engine InnoDB, not the ROCKSDB asked by --engine" in done.stderr
        assert "plugin" in done.stderr


def test_the_c_benchmark_runs_on_the_built_in_engines(recovery_dir):
    with answering(recovery_dir, "builtin", {}) as server:
        for engine in ("Aria", "MyISAM"):
            server.create_database(fresh=True)
            done = _benchmark(server, "--engine", engine)
            assert done.returncode == 0, done.stderr
            assert f"# table_engine {engine}" in done.stdout.splitlines()
            assert server.count_rows() == 3000


@pytest.mark.django_db
def test_the_entry_page_judges_myrocks_settings_by_the_table_read_with_the_plugin():
    plain = servers.ServerConfig(kind="mariadb", base_dir=ROCKSDB.base_dir)
    options_kept(ROCKSDB)
    options_kept(plain)  # read last: an InnoDB entry's settings are judged by it
    block_cache = setting_decisions({"rocksdb_block_cache_size": "64M"}, MYSQL)
    assert block_cache["rocksdb_block_cache_size"].applied
    assert block_cache["rocksdb_block_cache_size"].sentence.startswith("applied, scaled 1/k")
    decided = setting_decisions(
        {"innodb_buffer_pool_size": "64M", "rocksdb_bulk_load": "ON"}, MYSQL
    )
    assert decided["innodb_buffer_pool_size"].applied
    assert not decided["rocksdb_bulk_load"].applied
    assert "bulk load" in decided["rocksdb_bulk_load"].sentence
