"""The organizer's rerun flow (issue 43): the form starts from the entry's own server and engine
and the contest's verification scale and repeats; an inconclusive verdict has buttons to
calibrate its host (queued behind the work already sent to it) and to judge the rerun again;
each run of a repeated rerun has its own progress, the whole job its time; the figures of a
verdict are said in words once."""

from __future__ import annotations

import re
from html import escape

import pytest
from django.utils import timezone

from runner import fleet
from runner.heartbeats import worker_beat
from runner.host import this_host
from runner.models import CalibrationStatus, HostCalibration, RerunStatus, VerificationRun
from submissions.entries.demo import demo_load
from submissions.models import Contest, Submission
from testing.reruns import stored_run

pytestmark = pytest.mark.django_db

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"
TRUE_RERUNS = [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)]


def serve(*targets: str, host: str = "verifier") -> None:
    """A live worker on `host` serving these targets' queues (and its own), as its beat says."""
    registration = fleet.Registration(
        name=host, facts={**this_host(), "servers": {}}, target_facts={}, overridden=[]
    )
    fleet.host_beat(registration=registration)
    queues = [f"rerun.{name}" for name in targets] + [f"rerun.{name}@{host}" for name in targets]
    worker_beat(worker=f"celery@{host}", queues=queues)


def selected(page: str, name: str) -> str:
    """The value the form's field starts with: the selected option, or the input's value."""
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    if select:
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', select.group(1))
        return chosen.group(1) if chosen else ""
    field = re.search(rf'<input type="number" name="{name}"[^>]*>', page)
    value = re.search(r'value="([^"]*)"', field.group(0)) if field else None
    return value.group(1) if value else ""


def test_the_form_starts_from_the_entrys_own_server_and_the_contests_scale(
    client, entry, organizer
):
    serve("sqlite", "mariadb", "postgresql", "recovery-mariadb")
    Contest.objects.filter(pk=entry.contest_id).update(verification_scale=10)
    client.force_login(organizer)

    page = client.get(entry.get_absolute_url()).content.decode()

    # A MySQL/InnoDB entry: the private MariaDB, not SQLite (first in the list) nor the
    # crash-recovery target; 1/10 and the repeats a scaled verification takes.
    assert selected(page, "target") == "mariadb"
    assert (selected(page, "scale"), selected(page, "repeats")) == ("10", "4")
    # The host readout is drawn at that scale: the host is compared, not "not comparable"
    # for want of a scale.
    assert 'data-host="verifier"' in page


def test_without_a_contest_scale_the_scale_is_left_to_the_service(client, entry, organizer):
    serve("sqlite", "mariadb")
    client.force_login(organizer)

    page = client.get(entry.get_absolute_url()).content.decode()

    assert selected(page, "target") == "mariadb"
    assert (selected(page, "scale"), selected(page, "repeats")) == ("", "")


def inconclusive_run(entry) -> VerificationRun:
    # Three real 1/10 reruns of the demo claim, stored as judged inconclusive (the host was
    # not calibrated then).
    run = stored_run(entry, TRUE_RERUNS, "inconclusive", "Inconclusive: not calibrated.")
    VerificationRun.objects.filter(pk=run.pk).update(
        worker="celery@verifier", host={**run.host, "cpu_model": "AMD EPYC"}
    )
    run.refresh_from_db()
    return run


def test_an_inconclusive_verdict_has_a_button_that_queues_its_hosts_calibration(
    client, entry, organizer, django_capture_on_commit_callbacks
):
    serve("mariadb")
    run = inconclusive_run(entry)
    busy = stored_run(entry, ["iibench-c-mariadb-25mb-pool-300k-2.log"], "", "")
    VerificationRun.objects.filter(pk=busy.pk).update(
        status=RerunStatus.RUNNING, verdict="", worker="celery@verifier", host={"cpu_model": "EPYC"}
    )
    client.force_login(organizer)
    page = client.get(entry.get_absolute_url()).content.decode()
    card = page.split(f'id="rerun-{run.pk}"')[1].split("</article>")[0]
    assert f'action="/reruns/{run.pk}/calibrate-host/"' in card
    assert f'action="/reruns/{run.pk}/judge-again/"' in card

    with django_capture_on_commit_callbacks() as sent:
        response = client.post(f"/reruns/{run.pk}/calibrate-host/", follow=True)

    calibration = HostCalibration.objects.get()
    assert (calibration.host, calibration.target, calibration.status) == (
        "verifier",
        "mariadb",
        CalibrationStatus.QUEUED,
    )
    assert calibration.rows == 300_000  # the band the run's verdict is drawn with
    # Sent on commit to the host's own queue, where the running rerun is: it waits behind it.
    assert len(sent) == 1
    assert "on rerun.mariadb@verifier, behind the work already queued there" in (
        calibration.message
    )
    said = response.content.decode()
    assert f"Calibration #{calibration.pk} of verifier on mariadb (queued)" in said
    assert f"Judge rerun #{run.pk} again once it is done." in said

    # Asked twice, it is queued once.
    client.post(f"/reruns/{run.pk}/calibrate-host/")
    assert HostCalibration.objects.count() == 1


def test_judging_again_stores_the_new_verdict_and_the_entrys_outcome(client, organizer):
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    serve("mariadb")
    run = inconclusive_run(entry)
    client.force_login(organizer)

    response = client.post(f"/reruns/{run.pk}/judge-again/", follow=True)

    run.refresh_from_db()
    entry.refresh_from_db()
    # The test settings let the fixtures' spreads stand in for the host's calibration.
    assert run.verdict == "reproduced", run.message
    said = response.content.decode()
    assert f"Rerun #{run.pk} judged again: Reproduced (was Inconclusive)." in said
    header = said.split('class="entry-head"')[1].split("</header>")[0]
    assert 'class="badge verified big"' in header
    assert escape(run.result["headline"]) in header
    assert (entry.verification, entry.verified) == ("reproduced", True)

    # Judged again with nothing new, it stands, and says so.
    again = client.post(f"/reruns/{run.pk}/judge-again/", follow=True).content.decode()
    assert f"Rerun #{run.pk} judged again: it stands (Reproduced)." in again


def test_a_repeated_rerun_shows_each_runs_progress_and_the_jobs_time_apart(
    client, entry, organizer
):
    run = stored_run(entry, ["iibench-c-mariadb-25mb-pool-300k-1.log"] * 3, "", "")
    VerificationRun.objects.filter(pk=run.pk).update(
        status=RerunStatus.RUNNING, verdict="", repeats=4, repeats_done=2, rows_done=120_000,
        started_at=timezone.now() - timezone.timedelta(seconds=100), finished_at=None,
        host={"comparison": "Host comparable.", "cpu_model": "AMD EPYC"}, ratio=0.8,
    )  # fmt: skip
    client.force_login(organizer)

    page = client.get(entry.get_absolute_url()).content.decode()

    card = page.split(f'id="rerun-{run.pk}"')[1].split("</article>")[0]
    assert re.search(r'Run <span data-field="current_repeat">3</span> of 4:', card)
    bars = re.findall(r'<li data-repeat="(\d)">Run \d: <progress max="300000" value="(\d+)"', card)
    assert bars == [("0", "300000"), ("1", "300000"), ("2", "120000"), ("3", "0")]
    assert "All 4 runs: elapsed" in card
    # The ratio is said in words, once for the page.
    assert page.count("the rerun's performance over the claim's at the same scale") == 1
    assert page.index("The figures of a verdict, in words") < page.index(f'id="rerun-{run.pk}"')
