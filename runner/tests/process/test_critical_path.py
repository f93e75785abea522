"""What a rerun's critical path spent on a CPU (issue 45): the benchmark's own threads are read
from /proc as it exits, before the worker reaps it, and the log's `# rerun critical cpu` lines
reach the judge's result."""

from __future__ import annotations

import subprocess  # nosec B404: the test's own child, a fixed Python loop
import sys
import time

from runner import activity
from runner.judge.rerun import (
    CRITICAL_CPU,
    PATH_WAIT,
    client_wait_line,
    cpu_wait_line,
    critical_cpu_line,
    read_output,
    stated_critical_cpu,
    stated_path_wait,
)
from runner.watch import exited_unreaped
from testing.logs import c_log

C_LOG = c_log(rows=10_000, every=1_000).decode()

BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass\n"


def test_an_exited_benchmarks_cpu_is_read_before_it_is_reaped():
    child = subprocess.Popen([sys.executable, "-c", BURN])  # nosec B603
    assert not exited_unreaped(child)  # still running
    deadline = time.monotonic() + 30
    while not exited_unreaped(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    times = activity.thread_times([child.pid])
    ran = sum(cpu for cpu, _ in times.values()) / 1e9
    assert ran >= 0.3, times
    assert child.poll() == 0  # reaped now
    assert not exited_unreaped(child)
    assert activity.thread_times([child.pid]) == {}


def test_the_critical_cpu_lines_reach_the_result_only_when_every_step_states_one():
    line = critical_cpu_line(1.25, 3.5)
    assert line.startswith("# rerun critical cpu seconds=4.750 client=1.250 server=3.500 ")
    assert stated_critical_cpu("# rows\n" + line + line) == 9.5
    assert stated_critical_cpu("# rows\n") is None
    # The plan is only carried along: what is read is the logs'.
    stated = read_output({"insert": C_LOG + line}, spec=None, rows_target=10_000)
    assert stated.result[CRITICAL_CPU] == 4.75
    both = read_output({"insert": C_LOG + line, "load": C_LOG + line}, spec=None, rows_target=1)
    assert both.result[CRITICAL_CPU] == 9.5
    unstated = read_output({"insert": C_LOG, "load": C_LOG + line}, spec=None, rows_target=1)
    assert CRITICAL_CPU not in unstated.result


def test_a_steps_writer_path_waits_are_its_benchmarks_and_its_servers_busiest_threads():
    # The server's busiest thread waited 1 s of a 10 s step for a CPU, the benchmark 0.5 s:
    # a one-writer run's path waited 15% of it.
    server, client = cpu_wait_line(1.0, 10.0), client_wait_line(0.5, 10.0)
    assert client.startswith("# rerun client wait seconds=0.500 of=10.000 ")
    assert stated_path_wait(server + client) == 0.15
    assert stated_path_wait(server) is None  # the benchmark's waits not read: not known
    stated = read_output({"insert": C_LOG + server + client}, spec=None, rows_target=10_000)
    assert stated.result[PATH_WAIT] == 0.15
    assert PATH_WAIT not in read_output({"insert": C_LOG + server}, spec=None, rows_target=1).result
