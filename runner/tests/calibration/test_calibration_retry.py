"""A calibration that recovers (issue 45): a host busy before its first run fails in seconds,
saying so and when it is tried again; failures in a row back off from RETRY_MIN_SECONDS to
RETRY_SECONDS, and a calibration that measured resets the wait."""

from __future__ import annotations

import subprocess  # nosec B404: the test's own CPU load, a fixed command
import sys
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from runner import calibration
from runner.models import CalibrationStatus, HostCalibration

HOST = "verifier-retry"
# One core of CPU work, bounded: it stops by itself after 30 s if the test does not end it.
BURN = "import time\nend = time.monotonic() + 30\nwhile time.monotonic() < end: pass\n"


def test_the_wait_doubles_with_each_failure_in_a_row_up_to_the_longest():
    waits = [calibration.retry_wait(n, first=120, longest=1800) for n in range(0, 7)]
    assert waits == [0, 120, 240, 480, 960, 1800, 1800]


def ended(status: str, minutes_ago: float) -> HostCalibration:
    at = timezone.now() - timedelta(minutes=minutes_ago)
    return HostCalibration.objects.create(
        host=HOST, target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=status, started_at=at, measured_at=at if status == CalibrationStatus.DONE else None,
    )  # fmt: skip


def due() -> bool:
    reference = calibration.reference_for(name="demo-tenth")
    return calibration.calibration_due(
        host=HOST, target="mariadb", reference=reference, now=timezone.now()
    )


def test_a_failed_calibration_is_tried_again_sooner_than_the_longest_wait(db, settings):
    settings.RERUN_CALIBRATION_RETRY_MIN_SECONDS = 120
    settings.RERUN_CALIBRATION_RETRY_SECONDS = 1800
    settings.RERUN_CALIBRATION_MAX_AGE_DAYS = 7
    ended(CalibrationStatus.FAILED, minutes_ago=1)
    assert not due()  # within the first wait (2 min)
    HostCalibration.objects.update(started_at=timezone.now() - timedelta(minutes=3))
    assert due()  # before, the host waited 30 min after any failure


def test_failures_in_a_row_back_off_and_a_measured_calibration_resets_them(db, settings):
    settings.RERUN_CALIBRATION_RETRY_MIN_SECONDS = 120
    settings.RERUN_CALIBRATION_RETRY_SECONDS = 1800
    settings.RERUN_CALIBRATION_MAX_AGE_DAYS = 0.0001  # every measured calibration stale
    for minutes in (40, 30, 20):
        ended(CalibrationStatus.FAILED, minutes_ago=minutes)
    ended(CalibrationStatus.FAILED, minutes_ago=5)
    # Four in a row: the next waits 16 min, so 5 min after the last is too soon.
    assert calibration.failures_in_a_row(HOST, "mariadb", "demo-tenth") == 4
    assert not due()
    ended(CalibrationStatus.DONE, minutes_ago=4)
    ended(CalibrationStatus.FAILED, minutes_ago=3)
    # One failure since a calibration measured: 2 min, passed.
    assert calibration.failures_in_a_row(HOST, "mariadb", "demo-tenth") == 1
    assert due()


@pytest.fixture
def one_core_of_other_work():
    burner = subprocess.Popen([sys.executable, "-c", BURN])  # nosec B603
    time.sleep(0.5)
    yield
    burner.kill()
    burner.wait()


def test_a_host_busy_before_the_first_run_fails_at_once_and_says_when_it_tries_again(
    db, settings, one_core_of_other_work
):
    settings.RERUN_CALIBRATION_PRECHECK_SECONDS = 2
    settings.RERUN_CALIBRATION_BUSY_CORES = 0.5
    settings.RERUN_CALIBRATION_RETRY_MIN_SECONDS = 120
    reference = calibration.reference_for(name="small")
    started = time.monotonic()
    row = calibration.host_calibrate(target="mariadb", reference=reference, repeats=3, host=HOST)
    # The watch and nothing else: no private server was started, no run made.
    assert time.monotonic() - started < 20
    assert row.status == CalibrationStatus.FAILED
    assert row.message.startswith("The host was busy before the calibration started: ")
    assert "so no run was started" in row.message
    assert row.message.endswith(
        "Tried again in 2 min at the earliest, when its queue is idle (1 failure)."
    )
    assert row.runs == 0 and row.log == ""
    second = calibration.host_calibrate(target="mariadb", reference=reference, repeats=3, host=HOST)
    assert second.message.endswith(
        "Tried again in 4 min at the earliest, when its queue is idle (2 failures in a row)."
    )
