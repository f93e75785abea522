"""What a run costs (formats 2 and 3): latency, CPU, device I/O and size on every report line, and
the machine and the server's settings in the header."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from iibench_output import COST_COLUMNS, Output

from conftest import Database, run_iibench

SERVER_MEASURES = ("server_cpu_s", "server_rss_bytes")
DEVICE_MEASURES = ("read_bytes", "write_bytes", "read_ops", "write_ops")


def costly_run(db: Database, *extra: str) -> Output:
    return run_iibench(
        "--db", db.url, "--rows", "60000", "--report-every", "15000", *extra, timeout=300
    ).output


def size_now(db: Database) -> int:
    if db.kind == "mysql":
        return db.scalar(
            "SELECT file_size FROM information_schema.innodb_sys_tablespaces "
            "WHERE name = CONCAT(DATABASE(), '/mypurchases')"
        )
    if db.kind == "postgresql":
        return db.scalar("SELECT pg_total_relation_size('mypurchases')")
    return db.scalar(
        "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), "
        "pragma_freelist_count(), pragma_page_size()"
    )


def test_every_report_line_carries_what_its_interval_cost(db: Database) -> None:
    out = costly_run(db)

    assert [r.rows for r in out.reports] == [15000, 30000, 45000, 60000]
    for report in out.reports:
        cost = report.cost
        assert 0 < cost["latency_p50_ms"] <= cost["latency_p99_ms"] <= cost["latency_max_ms"]
        # No single INSERT of 1,000 rows takes longer than its whole interval.
        assert cost["latency_max_ms"] <= report.seconds * 1000 + 1
        assert cost["client_cpu_s"] is not None and cost["client_cpu_s"] >= 0
        for name in DEVICE_MEASURES:
            assert cost[name] is not None and cost[name] >= 0, name
        if db.kind == "sqlite":
            # Embedded: the engine's CPU is the client's; there is no server process.
            assert all(cost[name] is None for name in SERVER_MEASURES)
        else:
            assert cost["server_cpu_s"] >= 0
            assert cost["server_rss_bytes"] > 10_000_000
    # The client spent CPU; on a server the server spent more per row than the client.
    assert sum(r.cost["client_cpu_s"] for r in out.reports) > 0
    if db.kind != "sqlite":
        server = sum(r.cost["server_cpu_s"] for r in out.reports)
        assert server > sum(r.cost["client_cpu_s"] for r in out.reports)


def test_machine_cpu_is_the_whole_machines_busy_time(db: Database) -> None:
    out = costly_run(db)

    previous = 0.0
    for report in out.reports:
        cost = report.cost
        machine = cost["machine_cpu_s"]
        assert machine is not None
        # Every CPU of the machine at most, over the interval (ticks are 10 ms, per CPU).
        interval = report.seconds - previous
        assert machine <= os.cpu_count() * interval + 0.02 * os.cpu_count()
        previous = report.seconds
    # The machine's time holds the client's and the server's, which ran on it (over the
    # run: each is counted in ticks of 10 ms, so an interval alone may disagree).
    spent = sum(r.cost["client_cpu_s"] + (r.cost["server_cpu_s"] or 0) for r in out.reports)
    machine = sum(r.cost["machine_cpu_s"] for r in out.reports)
    assert machine >= 0.9 * spent - 0.02 * len(out.reports)


def test_the_database_grows_with_its_rows_and_its_size_is_the_servers(db: Database) -> None:
    out = costly_run(db)

    sizes = [r.cost["db_size_bytes"] for r in out.reports]
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]
    # 60,000 rows of the classic table and its four indexes: more than 3 MB, less than 100.
    assert 3_000_000 < sizes[-1] < 100_000_000
    assert sizes[-1] == size_now(db)


def test_write_bytes_count_what_the_data_device_wrote(db: Database) -> None:
    out = costly_run(db)

    written = [r.cost["write_bytes"] for r in out.reports]
    ops = [r.cost["write_ops"] for r in out.reports]
    # Every commit is made durable (redo log / WAL) or checkpointed: the device is written.
    assert sum(written) > 0 and sum(ops) > 0
    assert all(b == 0 or b >= 512 for b in written)


def test_the_trailer_says_what_measuring_cost_the_client(sqlite_db: Database) -> None:
    out = costly_run(sqlite_db)

    pairs = dict(pair.split("=") for pair in out.comments["cost_overhead"].split())
    client = float(out.comments["client_cpu"].split()[0].split("=")[1])
    assert 0 < float(pairs["seconds"]) < client
    assert float(pairs["share_of_client_cpu"]) == pytest.approx(
        float(pairs["seconds"]) / client, rel=0.05, abs=1e-4
    )
    # SQLite's engine runs in the client: four reports are a sliver of its CPU.
    assert float(pairs["share_of_client_cpu"]) < 0.01


def test_without_measuring_every_cost_column_is_a_dash(sqlite_db: Database) -> None:
    out = costly_run(sqlite_db, "--no-cost")

    assert out.comments["cost"].startswith("measured=no ")
    for report in out.reports:
        assert report.cost == dict.fromkeys(COST_COLUMNS)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/PID/stat (fields after the command)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_threaded_servers_cpu_is_what_proc_says_it_spent(mysql_db: Database) -> None:
    # mariadbd starts no process: its CPU is read from its CPU clock, not /proc/PID/stat, and
    # must agree with what stat says the process spent over the run.
    with open(mysql_db.scalar("SELECT @@pid_file")) as pid_file:
        pid = int(pid_file.read())
    before = cpu_seconds(pid)
    out = costly_run(mysql_db)
    spent = cpu_seconds(pid) - before

    assert f"server_pid={pid} " in out.comments["cost"]
    counted = sum(r.cost["server_cpu_s"] for r in out.reports)
    # The reports leave out the set-up (the table's creation); stat's ticks are 10 ms and
    # truncated, the clock's nanoseconds, and each report line rounds to 1 ms.
    assert 0.5 * spent - 0.05 <= counted <= spent + 0.03
    assert counted > 0


def test_server_pid_names_the_process_whose_cpu_is_counted(sqlite_db: Database) -> None:
    # A process that burns CPU for the whole run stands in for a server.
    busy = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 60\nwhile time.time() < end: pass"]
    )
    try:
        before = cpu_seconds(busy.pid)
        out = run_iibench(
            "--db",
            sqlite_db.url,
            "--rows",
            "40000",
            "--report-every",
            "10000",
            "--max-rate",
            "40000",
            "--server-pid",
            str(busy.pid),
        ).output
        spent = cpu_seconds(busy.pid) - before
    finally:
        busy.kill()
        busy.wait()

    assert f"server_pid={busy.pid} " in out.comments["cost"]
    counted = sum(r.cost["server_cpu_s"] for r in out.reports)
    # The reports cover most of the benchmark's life (not its set-up): what the busy process
    # spent meanwhile, however much of a core a loaded machine gave it. Ticks are 10 ms.
    assert 0.5 * spent - 0.05 <= counted <= spent + 0.05
    assert counted > 0
    assert all(r.cost["server_rss_bytes"] > 1_000_000 for r in out.reports)


def test_the_header_names_the_machine(db: Database) -> None:
    out = costly_run(db)

    machine = out.machine
    assert set(machine) >= {
        "cpu_model",
        "cpus",
        "sockets",
        "cores",
        "memory_bytes",
        "data_device",
        "data_device_model",
        "data_device_rotational",
        "data_filesystem",
    }
    assert int(machine["cpus"]) == os.cpu_count()
    assert int(machine["memory_bytes"]) > 1 << 30
    # The tests' servers and SQLite file live on this host's disk.
    assert machine["data_device"] != "-"
    assert machine["data_device_rotational"] in ("yes", "no")
    assert machine["data_filesystem"] != "-"


def test_the_header_lists_the_servers_settings_and_marks_the_changed(db: Database) -> None:
    out = costly_run(db)

    settings = out.settings
    assert {state for state, _ in settings.values()} <= {"default", "changed"}
    if db.kind == "mysql":
        assert len(settings) > 300
        pool = db.scalar("SELECT @@innodb_buffer_pool_size")
        assert settings["innodb_buffer_pool_size"][1] == str(pool)
        # Debian's configuration names the pid file; the compiled default has none.
        assert settings["pid_file"][0] == "changed"
        assert settings["innodb_buffer_pool_size"][0] == "default"
    elif db.kind == "postgresql":
        assert len(settings) > 200
        assert settings["shared_buffers"][1] == db.scalar("SHOW shared_buffers")
        # Set by the cluster's postgresql.conf (pg_createcluster), unlike the built-in "".
        assert settings["cluster_name"][0] == "changed"
        assert settings["work_mem"][0] == "default"
    else:
        assert settings["journal_mode"] == ("changed", "wal")
        assert settings["page_size"] == ("default", "4096")
