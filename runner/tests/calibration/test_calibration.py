"""Per-host calibration of the classic judge (runner/calibration.py): the verdict drawn with the
host's own stored calibration, and inconclusive when it is stale, missing or too wide to tell a
claim 1.25x too fast (stored rows, the real judge through `rerun_rejudge`); and one small real
calibration through a real worker, sent by the sweep to the target's idle queue."""

from __future__ import annotations

import time
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from runner import calibration
from runner.models import CalibrationStatus, HostCalibration, WorkerBeat
from runner.rejudge import rerun_rejudge
from submissions.entries.demo import demo_load
from submissions.models import Submission
from testing.reruns import stored_run

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"
TRUE_RERUNS = [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)]
HOST = "verifier-1"
# Spreads as a quiet calibration of five runs measures them on this project's VMs (the
# fixtures' own, runs of the 14 MB triple; sigma of a rate or ratio in logs).
QUIET = {
    "cliff_fraction": {"sigma": 0.02, "dof": 4},
    "average_rate": {"sigma": 0.06, "dof": 4},
    "reads_per_row": {"sigma": 0.03, "dof": 4},
    "server_cpu_share": {"sigma": 0.03, "dof": 4},
}


@pytest.fixture
def demo_entry(db):
    demo_load()
    return Submission.objects.get(entrant_name=DEMO_ENTRY)


@pytest.fixture
def without_fixture_spreads(settings):
    # The production default: no fixtures standing in for a host's own spread.
    settings.RERUN_FIXTURE_SPREADS = False
    settings.RERUN_CALIBRATION_MAX_AGE_DAYS = 7


def stored_calibration(*, days_old: float, spreads: dict = QUIET, rows: int = 300_000):
    measured = timezone.now() - timedelta(days=days_old)
    return HostCalibration.objects.create(
        host=HOST, target="mariadb", reference="demo-tenth", scale=10, rows=rows,
        status=CalibrationStatus.DONE, runs=5, spreads=spreads, started_at=measured,
        measured_at=measured,
    )  # fmt: skip


def judged(entry):
    run = stored_run(entry, TRUE_RERUNS, "reproduced", "Old.", worker=f"celery@{HOST}")
    rerun_rejudge(run=run)
    run.refresh_from_db()
    return run


def test_a_verdict_uses_the_hosts_fresh_calibration_and_names_it(
    demo_entry, without_fixture_spreads, client
):
    row = stored_calibration(days_old=1)
    run = judged(demo_entry)
    assert run.verdict == "reproduced", run.message
    when = row.measured_at.strftime("%d %b %Y").lstrip("0")
    said = f"the host's calibration of {when}, 5 runs of 1/10 of the demo claim (300,000 rows"
    assert f"The host's spread: {said}" in run.message
    found = client.get(f"/api/reruns/{run.pk}/").json()
    assert found["resolution"]["spreads"].startswith(said)
    # A calibration of another host, or of a band far from the run's size, is not this one's.
    row.delete()
    stored_calibration(days_old=1, rows=20_000)
    HostCalibration.objects.create(
        host="elsewhere", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=CalibrationStatus.DONE, runs=5, spreads=QUIET, measured_at=timezone.now(),
    )  # fmt: skip
    assert judged(demo_entry).verdict == "inconclusive"


def test_a_stale_calibration_or_none_is_inconclusive_with_that_reason(
    demo_entry, without_fixture_spreads
):
    run = judged(demo_entry)
    assert run.verdict == "inconclusive", run.message
    assert f"inconclusive: this host ({HOST}) has no calibration for a run of this size" in (
        run.message
    )
    assert run.result["headline"].startswith(
        f"Inconclusive at 1/10 on mariadb: this host ({HOST}) has no calibration"
    )
    assert "calibrate it (manage.py calibrate_host)" in run.message
    # No resolution is claimed without the host's spread.
    assert "This verification would have refuted" not in run.message
    assert "resolution" not in run.result

    stored_calibration(days_old=9)
    run = judged(demo_entry)
    assert run.verdict == "inconclusive", run.message
    assert f"this host's ({HOST}) calibration of " in run.message
    assert "is stale (9 days old, more than 7)" in run.message
    # Why the host has no fresh one, where its last attempt said so; and it is not asked to
    # calibrate again at every sweep while the retry delay runs.
    HostCalibration.objects.create(
        host=HOST, target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=CalibrationStatus.FAILED,
        message="The host was busy: other work kept 1.30 of its cores busy beside a run.",
    )  # fmt: skip
    run = judged(demo_entry)
    assert (
        "(its last calibration failed: The host was busy: other work kept 1.30 of its cores "
        "busy beside a run)" in run.message
    )
    reference = calibration.REFERENCES["demo-tenth"]
    assert not calibration.calibration_due(
        host=HOST, target="mariadb", reference=reference, now=timezone.now()
    )
    later = timezone.now() + timedelta(hours=1)
    assert calibration.calibration_due(host=HOST, target="mariadb", reference=reference, now=later)
    demo_entry.refresh_from_db()
    assert not demo_entry.verified


def test_where_the_fixtures_may_stand_in_a_stale_calibration_gives_way_to_them_said_so(
    demo_entry, without_fixture_spreads, settings
):
    settings.RERUN_FIXTURE_SPREADS = True
    stored_calibration(days_old=9)
    run = judged(demo_entry)
    assert run.verdict == "reproduced"
    assert "spreads from the project's fixtures, this host is not calibrated" in run.message


def test_a_spread_too_wide_to_tell_a_claim_a_quarter_too_fast_is_inconclusive(
    demo_entry, without_fixture_spreads
):
    # A noisy host: its server's share of the time varied 15% (in logs) run to run.
    noisy = {**QUIET, "server_cpu_share": {"sigma": 0.15, "dof": 4}}
    stored_calibration(days_old=1, spreads=noisy)
    run = judged(demo_entry)
    assert run.verdict == "inconclusive", run.message
    assert "this host's spread is too wide to tell a claim 1.25x too fast from a true one" in (
        run.message
    )
    factor = run.result["resolution"]["too_fast_factor"]
    assert factor > 1.25
    assert f"This verification would have refuted a claim {factor:.2f}x too fast" in run.message
    assert run.result["headline"].startswith(
        "Inconclusive at 1/10 on mariadb: this host's spread is too wide"
    )


def test_calibrate_host_refuses_what_it_cannot_do(db):
    with pytest.raises(Exception, match="No reference setup at 1/7: the bands are 1/10"):
        call_command("calibrate_host", "--scale", "7", stdout=StringIO())
    with pytest.raises(Exception, match="The sqlite target cannot be calibrated"):
        call_command("calibrate_host", "--target", "sqlite", stdout=StringIO())
    with pytest.raises(Exception, match="is a mysql claim; the postgresql target runs postgresql"):
        call_command("calibrate_host", "--target", "postgresql", stdout=StringIO())
    with pytest.raises(Exception, match="Between 2 and 10 repeats"):
        call_command("calibrate_host", "--repeats", "1", stdout=StringIO())


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_idle_worker_calibrates_its_host_when_the_sweep_finds_it_due(
    worker, settings, recovery_dir
):
    # The machine running the tests is shared (other checkouts' tests run beside this one), so
    # the test does not ask it to be quiet: the busy refusal is the pure judge's to test.
    running = worker("redis", RERUN_RECOVERY_DIR=recovery_dir, RERUN_CALIBRATION_BUSY_CORES="8")
    settings.RERUN_CALIBRATE_WHEN_IDLE = True
    settings.RERUN_CALIBRATION_REFERENCES = ["small"]
    settings.RERUN_CALIBRATION_REPEATS = 3
    deadline = time.monotonic() + 30
    while not WorkerBeat.objects.filter(queue="rerun.mariadb").exists():
        assert time.monotonic() < deadline, "the worker never beat for rerun.mariadb"
        time.sleep(0.2)

    assert calibration.calibrations_send() == 1
    assert calibration.calibrations_send() == 0  # queued: not sent twice

    deadline = time.monotonic() + 120
    row = HostCalibration.objects.get()
    while row.status in (CalibrationStatus.QUEUED, CalibrationStatus.RUNNING):
        assert time.monotonic() < deadline, running.log[-3000:]
        time.sleep(0.5)
        row.refresh_from_db()
    assert row.status == CalibrationStatus.DONE, row.message
    assert (row.target, row.reference, row.scale, row.rows, row.runs) == (
        "mariadb", "small", 10, 20_000, 3
    )  # fmt: skip
    assert row.host == calibration.this_host_name()
    # Every figure every run measured, over two degrees of freedom; the cliff and the rate at
    # least (a 20,000-row run may or may not reach its cliff on a loaded machine).
    assert {"cliff_fraction", "average_rate", "initial_rate"} <= set(row.spreads)
    assert all(each["dof"] == 2 and each["sigma"] >= 0 for each in row.spreads.values())
    assert len(row.figures) == 3
    assert row.log.count("# summary status=completed rows=20000") == 3
    assert row.log.count("# rerun steal cores=") == 3
    assert "# rerun setting innodb_buffer_pool_size=" in row.log
    assert row.other_work is not None and row.steal is not None
    assert "steal time counted" in row.message
    # The fixed reference workload beside its runs (before each and after the last): the quiet
    # rate a verification's references are set against.
    assert row.log.count("# rerun reference ") == 4
    assert row.reference_rate is not None and row.reference_rate > 0
    assert f"the reference workload beside them ran {row.reference_rate:,.0f} rows/s" in (
        row.message
    )
    # Fresh now: the sweep leaves the host alone.
    assert calibration.calibrations_send() == 0


def reference_judged(entry, rates: list[float]):
    """The true reruns, stored with the reference runs their worker kept beside them."""
    run = stored_run(entry, TRUE_RERUNS, "reproduced", "Old.", worker=f"celery@{HOST}")
    run.host = {**run.host, "reference": {"rows": 100_000, "rates": rates, "label": "fixed"}}
    run.save(update_fields=["host"])
    rerun_rejudge(run=run)
    run.refresh_from_db()
    return run


def test_a_quiet_hosts_references_off_its_calibration_make_the_calibration_stale(
    demo_entry, without_fixture_spreads
):
    calibrated = stored_calibration(days_old=1)
    HostCalibration.objects.filter(pk=calibrated.pk).update(reference_rate=30_000.0)
    run = reference_judged(demo_entry, [22_000.0, 22_500.0, 22_500.0, 23_000.0])

    # Judged with the calibration as it stood, and its quiet rate; said how the host moved.
    assert "from 4 reference runs (fixed) before each repeat and after the last" in run.message
    assert "Quiet, it runs 30,000 rows/s (its calibration of " in run.message
    assert "The host's reference speed moved -25%" in run.message
    calibrated.refresh_from_db()
    assert calibrated.stale.startswith("The host's reference speed moved -25%")
    # Stale: the next verdict has no calibration, and the sweep finds the host due.
    again = judged(demo_entry)
    assert again.verdict == "inconclusive", again.message
    reference = calibration.REFERENCES["demo-tenth"]
    assert calibration.calibration_due(
        host=HOST, target="mariadb", reference=reference, now=timezone.now()
    )


def test_references_within_the_drift_leave_the_calibration_fresh(
    demo_entry, without_fixture_spreads
):
    calibrated = stored_calibration(days_old=1)
    HostCalibration.objects.filter(pk=calibrated.pk).update(reference_rate=30_000.0)
    run = reference_judged(demo_entry, [29_000.0, 30_500.0, 29_800.0, 31_000.0])
    assert run.verdict == "reproduced", run.message
    calibrated.refresh_from_db()
    assert calibrated.stale == ""
