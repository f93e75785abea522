"""Crash-recovery reruns against private servers the worker starts itself: a real mariadbd and
a real PostgreSQL, killed with SIGKILL mid-insert and restarted on the same data."""

import json
import os
import re
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.db import connections

from runner import servers, services
from runner.host import this_host
from runner.models import RerunStatus
from testing.reruns import track_entry

pytestmark = pytest.mark.django_db

CLAIM = {
    "insert_rate": 2_000.0,
    "rows_at_crash": 250_000_000,
    "recovery_seconds": 13.0,
    "engine": "InnoDB",
}


def declared_on_this_host(entry):
    """The entry as if made on this machine: a recovery time is an absolute speed, compared
    only on a host like the declared one."""
    host = this_host()
    entry.cores, entry.memory_gb = host["cores"], host["memory_gb"]
    entry.drive_kind = host["drive_kind"]
    entry.save(update_fields=["cores", "memory_gb", "drive_kind"])
    return entry


def start(entry, organizer, target: str, rows: int):
    # An InnoDB claim on a PostgreSQL server is a comparison run.
    run = services.rerun_start(
        submission=entry,
        target=target,
        rows=rows,
        requested_by=organizer,
        comparison=target.endswith("postgresql"),
    )
    assert services.rerun_claim(run_id=run.pk, worker="test")
    return run


def server_dir(run) -> Path:
    found = re.search(r"^# rerun step=server: .* dir=(\S+)$", run.log, re.MULTILINE)
    assert found, run.log[:2000]
    return Path(found.group(1))


def processes_using(folder: Path) -> str:
    found = subprocess.run(["pgrep", "-af", str(folder)], capture_output=True, text=True)
    return found.stdout.strip()


@pytest.mark.parametrize(
    ("target", "engine", "restart_says", "verdict"),
    [
        ("recovery-mariadb", "InnoDB", "InnoDB: Starting crash recovery", "reproduced"),
        # The claim is InnoDB's: PostgreSQL's recovery compares engines.
        ("recovery-postgresql", "PostgreSQL", "automatic recovery in progress", "comparison"),
    ],
)
def test_it_times_recovery_after_sigkill(
    organizer, iibench_binary, rerun_dir, recovery_dir, target, engine, restart_says, verdict
):
    entry = declared_on_this_host(track_entry("crash_recovery", CLAIM))
    run = start(entry, organizer, target, rows=4_000)
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    result = run.result
    print(run.log[:1500], ".....", run.log[-2500:], run.message, run.result, sep="\n")
    # The server really died: every process it had is gone, and a new one answered.
    assert result["crashed_pids"]
    assert all(not servers.alive(pid) for pid in result["crashed_pids"])
    assert result["restarted_pid"] not in result["crashed_pids"]
    assert restart_says in run.log
    assert result["recovery_seconds"] > 0
    assert result["rows_at_crash"] >= 4_000
    # Committed rows survive the crash.
    assert result["rows_found"] >= result["rows_committed"] >= result["rows_at_crash"]
    assert result["engine"] == engine
    assert 1_000 < result["insert_rate"] <= 2_200  # throttled to the claim's rate
    assert result["summary"].startswith("recovered in ")
    assert run.verdict == verdict
    assert "Killed with SIGKILL at" in run.message
    # Nothing is left: no server process, no files.
    folder = server_dir(run)
    assert not folder.exists()
    assert processes_using(folder) == ""
    assert list(Path(recovery_dir).iterdir()) == []


def test_a_crash_recovery_entry_needs_a_recovery_target(organizer):
    entry = declared_on_this_host(track_entry("crash_recovery", CLAIM))
    with pytest.raises(services.RerunRefused, match="choose a recovery target"):
        services.rerun_start(submission=entry, target="mariadb", rows=4_000, requested_by=organizer)
    classic = track_entry("classic", {})
    with pytest.raises(services.RerunRefused, match=r"runs crash.recovery reruns only"):
        services.rerun_start(
            submission=classic, target="recovery-mariadb", rows=4_000, requested_by=organizer
        )


def test_a_crash_point_past_the_time_limit_is_refused(organizer, settings):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "recovery-mariadb": {**settings.RERUN_TARGETS["recovery-mariadb"], "time_limit": 60},
    }
    entry = track_entry("crash_recovery", {**CLAIM, "insert_rate": 200})
    with pytest.raises(services.RerunRefused, match="take 100 s, longer than the target's 60 s"):
        services.rerun_start(
            submission=entry, target="recovery-mariadb", rows=20_000, requested_by=organizer
        )


def execute_and_close(run_id: int) -> None:
    try:
        services.rerun_execute(run_id=run_id)
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_cancel_during_a_crash_recovery_rerun_leaves_no_server_behind(
    organizer, iibench_binary, rerun_dir, recovery_dir, settings
):
    settings.RERUN_HEARTBEAT_SECONDS = 0.2
    entry = declared_on_this_host(track_entry("crash_recovery", CLAIM))
    run = start(entry, organizer, "recovery-mariadb", rows=1_000_000)
    worker = threading.Thread(target=execute_and_close, args=[run.pk])
    worker.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.step == "insert" and run.rows_done > 0:
            break
        time.sleep(0.1)
    assert run.step == "insert", run.message
    folder = server_dir(run)
    assert "mariadbd" in processes_using(folder)
    services.rerun_cancel(run=run)
    worker.join(timeout=30)
    run.refresh_from_db()
    assert run.status == RerunStatus.CANCELLED
    assert "private mariadb server was stopped and removed" in run.message
    assert processes_using(folder) == ""
    assert not folder.exists()


def test_leftovers_of_a_killed_worker_are_removed_and_live_ones_kept(recovery_dir):
    child = subprocess.Popen(["true"])
    child.wait()  # its pid is free now: the worker that made the folder is gone
    host = socket.gethostname()
    for name, pid in (
        ("iibench-recovery-r1-gone", child.pid),
        ("iibench-recovery-r2-live", os.getpid()),
    ):
        folder = Path(recovery_dir) / name
        folder.mkdir()
        (folder / "owner.json").write_text(json.dumps({"pid": pid, "host": host}))
    removed = servers.remove_leftovers(recovery_dir)
    assert [Path(path).name for path in removed] == ["iibench-recovery-r1-gone"]
    assert (Path(recovery_dir) / "iibench-recovery-r2-live").exists()


def test_a_time_out_during_crash_recovery_stops_the_benchmark_and_removes_the_server(
    organizer, iibench_binary, rerun_dir, recovery_dir, settings
):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "recovery-postgresql": {**settings.RERUN_TARGETS["recovery-postgresql"], "time_limit": 4},
    }
    entry = declared_on_this_host(track_entry("crash_recovery", CLAIM))
    run = start(entry, organizer, "recovery-postgresql", rows=7_000)
    run = services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.TIMED_OUT, run.message
    assert run.message == (
        "Timed out after 4 s; the private postgresql server was stopped and removed."
    )
    assert run.step == "insert"
    folder = server_dir(run)
    assert processes_using(folder) == ""
    assert not folder.exists()
