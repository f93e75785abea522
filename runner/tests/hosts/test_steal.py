"""Steal time counted as busy: the CPU time a hypervisor gave other guests during a rerun, read
from /proc/stat beside it (runner/host.py), joins the other work the judge weighs (the
benchmark's own machine CPU leaves it out, as it leaves out idle and iowait)."""

import io
from pathlib import Path

import numpy as np
import pytest

from runner.host import CpuTimes, busy_cores, cpu_times, steal_cores
from runner.judge.classic import judge
from runner.judge.rerun import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    Claim,
    RerunSpec,
    RunPlan,
    other_work,
    read_output,
    steal_line,
)
from submissions.logparse import parse_log

LOGS = Path(__file__).resolve().parents[3] / "submissions" / "tests" / "fixtures" / "logs"
DEMO_CLAIM = (
    Path(__file__).resolve().parents[3] / "submissions/demo_logs/c-small-pool-mariadb-3m.log"
)

# /proc/stat as a 2-CPU guest prints it: user nice system idle iowait irq softirq steal guest
# guest_nice, in clock ticks; 10 s later 2,000 ticks have passed, 600 of them stolen.
BEFORE = """cpu  1000 0 500 8000 100 0 20 400 0 0
cpu0 500 0 250 4000 50 0 10 200 0 0
cpu1 500 0 250 4000 50 0 10 200 0 0
intr 12345
"""
AFTER = """cpu  1500 0 700 8700 100 0 20 1000 0 0
cpu0 750 0 350 4350 50 0 10 500 0 0
cpu1 750 0 350 4350 50 0 10 500 0 0
"""


def test_steal_is_read_from_the_cpu_line_and_counted_in_cores():
    before, after = cpu_times(BEFORE), cpu_times(AFTER)
    assert before == CpuTimes(steal=400, total=10_020, idle=8_100)
    assert after.total - before.total == 2_000
    # 600 of 2,000 ticks stolen on a 2-core machine: 0.6 of a core, on average.
    assert steal_cores(before, after, cores=2) == pytest.approx(0.6)
    # A kernel without the steal field (before 2.6.11) steals nothing it can say.
    assert cpu_times("cpu  10 0 5 80 1 0 0\n").steal == 0
    # What is not /proc/stat is no sample, and no figure.
    assert cpu_times("intr 12345\n") is None
    assert cpu_times("cpu  a b c d\n") is None
    assert steal_cores(None, after, cores=2) is None
    assert steal_cores(after, before, cores=2) is None


def test_busy_cores_count_every_tick_not_idle_or_waiting_and_steal_as_busy():
    before, after = cpu_times(BEFORE), cpu_times(AFTER)
    # Of 2,000 ticks: 500 user, 200 system and 600 stolen; 700 idle. On 2 cores: 1.3 busy.
    assert busy_cores(before, after, cores=2) == pytest.approx(1.3)
    # Time waiting on I/O is not CPU work: a host whose ticks all waited is not busy.
    waiting = cpu_times("cpu  1000 0 500 8000 2100 0 20 400 0 0\n")
    assert busy_cores(before, waiting, cores=2) == pytest.approx(0.0)
    assert busy_cores(None, after, cores=2) is None
    assert busy_cores(after, before, cores=2) is None


def output_of(name: str, steal: float | None = None):
    text = (LOGS / name).read_text() + (steal_line(steal) if steal is not None else "")
    spec = RerunSpec(RunPlan("iibench", "mysql://", 300_000, 1_000, 1_000, 1), {}, 3_000_000)
    return read_output({"insert": text}, spec=spec, rows_target=300_000)


def test_a_rerun_beside_stolen_time_is_busy_and_the_verdict_says_steal_counts():
    quiet = [output_of(f"iibench-c-mariadb-25mb-pool-300k-{n}.log") for n in (1, 3)]
    assert [round(other_work(each.logs["insert"]), 1) for each in quiet] == [0.0, 0.0]
    parsed = parse_log(io.BytesIO(DEMO_CLAIM.read_bytes()))
    rows = parsed.series.rows
    seconds = [each / 1.6 for each in parsed.series.seconds]  # a claim 1.6x too fast

    def verdict(reruns):
        claim = Claim({}, 3_000_000, np.array(rows), np.array(seconds), "InnoDB")
        return judge(claim, reruns, kind="verification", scale=10, tolerance=0.25)

    refuted = verdict(quiet)
    assert refuted.verdict == NOT_REPRODUCED, refuted.message
    assert "(steal time counted as busy): a quiet host." in refuted.message
    # The same runs, while the hypervisor gave 0.8 of a core to other guests: the log's machine
    # CPU does not see it, the worker's /proc/stat does; a busy host only says it cannot tell.
    stolen = [output_of(f"iibench-c-mariadb-25mb-pool-300k-{n}.log", 0.8) for n in (1, 3)]
    assert stolen[0].result["steal_cores"] == pytest.approx(0.8)
    assert other_work(stolen[0].logs["insert"], 0.8) == pytest.approx(0.8, abs=0.05)
    busy = verdict(stolen)
    assert busy.verdict == INCONCLUSIVE, busy.message
    assert "(its machine CPU less theirs, steal time counted as busy)" in busy.message
    assert "rerun it on a quiet host" in busy.message
