"""What the host did beside a verification (runner/activity.py): the machine's disk bytes from
/proc/diskstats, a server's own from /proc/PID/io with its children's, the log line, and the
one sentence the organizer reads."""

from __future__ import annotations

import os
import subprocess  # nosec B404: the test's own writer, a fixed command
import sys
import time
from pathlib import Path

import pytest

from runner import activity
from runner.activity import (
    disk_bytes,
    io_bytes,
    other_io_line,
    physical_disks,
    server_io_bytes,
    stated_other_io,
    while_it_ran,
)

# /proc/diskstats: major minor name, then reads completed, merged, sectors read, ms reading,
# writes completed, merged, sectors written, ...
DISKSTATS = """\
   7       0 loop0 10 0 800 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 100 0 2000 50 300 0 6000 90 0 100 140 0 0 0 0 0 0
 254       1 vda1 90 0 1800 40 290 0 5800 80 0 90 120 0 0 0 0 0 0
"""


def test_the_disks_bytes_are_the_whole_devices_sectors_not_their_partitions_or_loops():
    assert disk_bytes(DISKSTATS, {"vda"}) == (2000 + 6000) * 512
    assert disk_bytes(DISKSTATS, set()) == 0
    # This machine's real disks have a device behind them; a loop device has none.
    assert not any(name.startswith("loop") for name in physical_disks())


def test_a_processes_storage_bytes_are_read_and_written_bytes():
    text = "rchar: 5\nwchar: 9\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n"
    assert io_bytes(text) == 12_288


def test_a_servers_io_counts_its_live_childrens(tmp_path: Path):
    # A parent whose child writes 8 MB and syncs it, then waits: the child's bytes are the
    # parent's tree's, as a PostgreSQL backend's are its postmaster's.
    script = (
        f"import os; f = open({str(tmp_path / 'x')!r}, 'wb'); f.write(b'x' * (8 << 20)); "
        "f.flush(); os.fsync(f.fileno()); import time; time.sleep(30)"
    )
    parent = subprocess.Popen(  # nosec B603
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {script!r}])",
        ]
    )
    try:
        deadline = time.monotonic() + 20
        while (server_io_bytes(parent.pid) or 0) < 8 << 20:
            assert time.monotonic() < deadline, server_io_bytes(parent.pid)
            time.sleep(0.1)
    finally:
        parent.kill()
        parent.wait()
    assert server_io_bytes(None) is None
    assert server_io_bytes(2**22 + os.getpid() % 1000) is None  # no such process


def test_the_log_line_is_read_back_as_bytes_a_second():
    text = "# rows 1000\n" + other_io_line(5_000_000, 2.0) + other_io_line(-5, 1.0)
    # Writeback of the server's own pages can make the difference negative: none, not less.
    assert stated_other_io(text) == [2_500_000.0, 0.0]


@pytest.mark.parametrize(
    "busy, steal, io, said",
    [
        (
            [0.12, 0.3], [0.0, 0.05], [2_500_000.0],
            "While it ran, beside the benchmark and its server: other work kept at most 0.30 "
            "cores busy, 0.05 of them stolen by the hypervisor; other processes' disk I/O at "
            "most 2.5 MB/s.",
        ),
        (
            [None], [None], [1e6],
            "While it ran, beside the benchmark and its server: other processes' disk I/O at "
            "most 1.0 MB/s.",
        ),
        ([None], [None], [], ""),
    ],
)  # fmt: skip
def test_the_one_line_says_the_most_of_each_measure_and_nothing_unmeasured(busy, steal, io, said):
    assert while_it_ran(busy, steal, io) == said


def test_a_threads_times_are_read_from_its_schedstat_and_the_longest_wait_and_run_taken(
    tmp_path,
):
    for tid, ran, wait in (
        ("11", 9_000_000_000, 2_000_000_000),
        ("12", 3_000_000_000, 500_000_000),
    ):
        task = tmp_path / "10" / "task" / tid
        task.mkdir(parents=True)
        (task / "schedstat").write_text(f"{ran} {wait} 77\n")
    after = activity.thread_times([10, 99], proc=tmp_path)  # 99: gone, no error
    assert after == {"10/11": (9_000_000_000, 2_000_000_000), "10/12": (3_000_000_000, 500_000_000)}
    waits = {key: wait for key, (_, wait) in after.items()}
    assert activity.longest_wait({"10/11": 1_500_000_000}, waits) == 0.5  # 12: new, from 0
    assert activity.longest_wait({}, {}) is None
    # 11 ran 1 s since the first reading, 12 (new) 3 s: the busiest ran 3 s.
    assert activity.busiest_cpu({"10/11": (8_000_000_000, 0)}, after) == 3.0
    assert activity.busiest_cpu({}, {}) == 0.0
    # This process, on the real /proc: its own thread is there.
    assert any(key.startswith(f"{os.getpid()}/") for key in activity.thread_times([os.getpid()]))
