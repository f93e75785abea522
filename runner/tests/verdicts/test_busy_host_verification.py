"""Issue 45's "done when": on a host that other work keeps busy, the demo claim is verified
(reproduced, or inconclusive saying why: never refuted) and a copy of it with every time
divided by 3 is refuted: its figures lie further past what the host allows than other work bends
a rerun (runner/judge/classic.py `FAR_BEYOND`). The host is calibrated
while quiet (as `make run`'s worker does when its queue is idle: the reference workload's quiet
rate), then a process the test starts keeps one core busy for both verifications: each repeat
is set against reference runs beside it, in a cgroup with a CPU weight above the load's."""

from __future__ import annotations

import subprocess  # nosec B404: the test's own load, a fixed Python loop
import sys

import pytest
from django.core.files.base import ContentFile

from runner import calibration
from runner.host import host_name
from submissions.entries.demo import (
    DEMO_LOGS,
    HONEST_CLAIM,
    demo_entries,
    demo_load,
    doctored_c_log,
)
from submissions.entries.services import entry_create
from submissions.models import Submission
from testing.reruns import run_to_end

pytestmark = pytest.mark.django_db

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"
WORKER = "test"  # run_to_end's worker: the host its runs are said to have run on
# One core of other work, bounded: it stops by itself after this many seconds if the test dies.
LOAD_SECONDS = 900
ONE_CORE = (
    "import time\n"
    f"end = time.monotonic() + {LOAD_SECONDS}\n"
    "while time.monotonic() < end:\n"
    "    pass\n"
)


def tripled_copy(honest: Submission) -> Submission:
    """The honest claim's log with every time divided by 3, declared as the honest one is."""
    declared = next(each for each in demo_entries() if each.log == HONEST_CLAIM).declared
    text = doctored_c_log((DEMO_LOGS / HONEST_CLAIM).read_text(), 3)
    return entry_create(
        contest=honest.contest,
        owner=honest.owner,
        declared={**declared, "entrant_name": "The demo claim with its times divided by 3"},
        log_file=ContentFile(text.encode(), name="tripled.log"),
        enforce_deadline=False,
    )


def test_a_busy_host_reproduces_the_demo_claim_and_refutes_a_copy_three_times_too_fast(
    organizer, iibench_binary, rerun_dir, recovery_dir, settings
):
    # The machine running the tests may be shared (other checkouts' tests beside this one): the
    # test does not ask it to be quiet to calibrate (the busy refusal is test_calibration's).
    settings.RERUN_CALIBRATION_PRECHECK_SECONDS = 0
    settings.RERUN_CALIBRATION_BUSY_CORES = 8
    # The production defaults (off in the other tests): references beside the repeats, and the
    # servers and benchmark in a cgroup weighted above other work.
    settings.RERUN_REFERENCE_RUNS = True
    settings.RERUN_CPU_WEIGHT = True
    demo_load()
    honest = Submission.objects.get(entrant_name=DEMO_ENTRY)
    tripled = tripled_copy(honest)
    quiet = calibration.host_calibrate(
        target="mariadb", reference=calibration.REFERENCES["small"], repeats=2,
        host=host_name(WORKER),
    )  # fmt: skip
    assert quiet.status == "done", quiet.message
    assert quiet.reference_rate and quiet.reference_rate > 0

    with one_busy_core_now() as load:
        honest_run = run_to_end(honest, organizer, "mariadb", scale=10, repeats=1)
        tripled_run = run_to_end(tripled, organizer, "mariadb", scale=10, repeats=1)
        assert load.poll() is None, "the load stopped before the verifications ended"

    for run in (honest_run, tripled_run):
        # Each repeat between two references, on a server of their own, in a weighted cgroup.
        assert run.log.count("# rerun reference ") == 2, run.log[-2000:]
        assert "# rerun cpu weight: cgroup v" in run.log
        assert len(run.host["reference"]["rates"]) == 2
        assert "reference runs" in run.message
        assert run.host.get("while_it_ran")  # what the host did, in one line
        # What the benchmark and its server's busiest thread computed, and how long the
        # benchmark waited for a CPU beside its server's waits.
        assert "# rerun critical cpu seconds=" in run.log
        assert "# rerun client wait seconds=" in run.log
    # Never the wrong way. The honest claim reproduced, or inconclusive saying why: one repeat
    # beside a load may move more than its band allows (2 of 3 runs on 29 Nov reproduced it;
    # the third's reason is in its message). The copy three times too fast refuted.
    assert honest_run.verdict in ("reproduced", "inconclusive"), honest_run.message
    if honest_run.verdict == "inconclusive":
        assert "inconclusive: " in honest_run.message, honest_run.message
    # The copy three times too fast: refuted however busy the host, saying why the load cannot
    # explain it (its figure further past the band than other work bends a rerun, or past what
    # the reruns' CPU allows).
    assert tripled_run.verdict == "not_reproduced", tripled_run.message
    assert "other work could bend a rerun here" in tripled_run.message or "however busy" in (
        tripled_run.message
    ), tripled_run.message
    honest.refresh_from_db()
    tripled.refresh_from_db()
    assert (honest.verification, tripled.verification) == (
        honest_run.verdict,
        tripled_run.verdict,
    )


class one_busy_core_now:
    """One core of other work for the block: a Python loop in a process of its own."""

    def __enter__(self) -> subprocess.Popen:
        self.load = subprocess.Popen([sys.executable, "-c", ONE_CORE])  # nosec B603
        return self.load

    def __exit__(self, *exc_info) -> None:
        self.load.kill()
        self.load.wait()
