"""Issue 33 §1: the verification hosts' registry (facts, overrides, heartbeat), routing a
verification to a comparable live host, the sweep's resume only on one, the page and the API.
Hosts here register as their worker does (runner/fleet.py's beat); test_fleet_workers.py starts
real workers."""

import subprocess
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from runner import fleet, services
from runner.heartbeats import worker_beat
from runner.host import compare_server, this_host
from runner.models import RerunSample, RerunStatus, VerificationHost, VerificationRun
from runner.targets import rerun_targets
from testing.reruns import track_entry

pytestmark = pytest.mark.django_db


def register(name: str, *, now=None, **facts) -> None:
    """A host whose worker serves the sqlite target beats, as the worker's thread does."""
    now = now or timezone.now()
    registration = fleet.Registration(
        name=name, facts={**this_host(), "servers": {}, **facts}, target_facts={}, overridden=[]
    )
    fleet.host_beat(registration=registration, now=now)
    worker_beat(worker=f"w@{name}", queues=["rerun.sqlite", "rerun.sqlite@" + name], now=now)


def declared_here(entry, **changes):
    """The entry as made on this machine (or on what `changes` say)."""
    host = this_host()
    values = {
        "cores": host["cores"],
        "memory_gb": host["memory_gb"],
        "drive_kind": host["drive_kind"],
        **changes,
    }
    for key, value in values.items():
        setattr(entry, key, value)
    entry.save(update_fields=list(values))
    return entry


def other_drive() -> str:
    return "nvme" if this_host()["drive_kind"] != "nvme" else "hdd"


def start(entry, organizer):
    return services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer, comparison=True
    )


# --- a host's facts ----------------------------------------------------------------------------


def test_a_host_registers_what_it_read_with_what_its_settings_set_over_it(settings):
    settings.RERUN_HOST_FACTS = {"drive_kind": "nvme", "cores": 64, "drive_model": ""}
    registration = fleet.this_registration("worker@box-1", ["celery", "rerun.sqlite"])
    fleet.host_beat(registration=registration)
    host = VerificationHost.objects.get(name="box-1")
    assert host.facts["drive_kind"] == "nvme" and host.facts["cores"] == 64
    assert host.facts["cpu_model"] == this_host()["cpu_model"]  # read, not set
    assert host.facts["memory_gb"] == this_host()["memory_gb"]
    assert host.overridden == ["cores", "drive_kind"]  # an empty value sets nothing
    # The server binaries this host's settings name, with the version each prints.
    mariadb = host.facts["servers"]["mariadb"]
    printed = subprocess.run(
        [settings.RERUN_RECOVERY_MARIADBD, "--version"], capture_output=True, text=True
    ).stdout
    assert mariadb["product"] == "MariaDB" and mariadb["version"] in printed
    assert host.facts["servers"]["postgresql"]["product"] == "PostgreSQL"


def test_a_per_target_override_still_applies_to_its_target_only(settings):
    settings.RERUN_TARGETS = {
        **settings.RERUN_TARGETS,
        "sqlite": {**settings.RERUN_TARGETS["sqlite"], "host": {"drive_kind": "ssd"}},
    }
    registration = fleet.this_registration("worker@box-2", ["rerun.sqlite", "rerun.mariadb"])
    assert registration.target_facts["sqlite"]["drive_kind"] == "ssd"
    assert "mariadb" not in registration.target_facts
    assert registration.facts["drive_kind"] == this_host()["drive_kind"]


def test_host_facts_naming_an_unknown_fact_are_refused_with_the_name(settings):
    settings.RERUN_HOST_FACTS = {"disk": "nvme"}
    with pytest.raises(ImproperlyConfigured, match="unknown facts disk; the facts are cpu_model"):
        fleet.host_facts()
    settings.RERUN_HOST_FACTS = ["nvme"]
    with pytest.raises(ImproperlyConfigured, match="must be a JSON object"):
        fleet.host_facts()


def test_a_host_whose_server_binary_is_missing_cannot_verify_on_that_server(settings, entry):
    settings.RERUN_RECOVERY_MARIADBD = "/nonexistent/mariadbd"
    facts = fleet.host_facts()
    assert "/nonexistent/mariadbd --version failed" in facts["servers"]["mariadb"]["error"]
    declared_here(entry)
    comparison = fleet.compare_with_entry(
        facts=facts, submission=entry, target=rerun_targets()["mariadb"], scale=1
    )
    assert not comparison.comparable
    assert comparison.sentence.startswith("Host not comparable: cannot start mariadb")


@pytest.mark.parametrize(
    ("family", "declared", "comparable", "says"),
    [
        ("postgresql", "15.4", True, "PostgreSQL 15.20, the entry's release line"),
        ("postgresql", "9.6.2", False, "the entry PostgreSQL 9.6.2: another release line"),
        ("postgresql", "", True, "the entry states no version"),
        ("mysql", "5.1.25-rc", True, "versions of different products, not compared"),
    ],
)
def test_a_server_is_compared_with_the_declared_release_line(family, declared, comparable, says):
    servers = {"postgresql": {"product": "PostgreSQL", "version": "15.20"}}
    verdict = compare_server(servers=servers, kind="postgresql", family=family, version=declared)
    assert verdict.comparable is comparable
    assert says in verdict.sentence


def test_mariadb_versions_compare_by_their_two_first_numbers():
    servers = {"mariadb": {"product": "MariaDB", "version": "10.11.19"}}
    older = compare_server(servers=servers, kind="mariadb", family="mariadb", version="10.6.12")
    assert not older.comparable
    same = compare_server(
        servers=servers, kind="mariadb", family="mysql", version="10.11.6-MariaDB"
    )
    assert same.comparable


# --- routing -----------------------------------------------------------------------------------


def test_a_verification_goes_to_the_least_busy_comparable_live_host(entry, organizer):
    declared_here(entry)
    register("alike-1")
    register("alike-2")
    register("unlike", drive_kind=other_drive())
    first, second, third = (start(entry, organizer) for _ in range(3))
    # Two comparable hosts take turns; the unlike one gets none.
    assert {first.routed_host, second.routed_host} == {"alike-1", "alike-2"}
    assert third.routed_host in ("alike-1", "alike-2")
    assert first.message == ""
    choices = {
        each.name: each
        for each in fleet.host_choices(submission=entry, target=rerun_targets()["sqlite"], scale=1)
    }
    assert not choices["unlike"].comparable
    assert f"{other_drive()} drive, the entry {this_host()['drive_kind']}" in (
        choices["unlike"].sentence
    )
    assert sorted(each.busy for each in choices.values()) == [0, 1, 2]


def test_with_no_comparable_live_host_the_run_goes_to_the_general_queue_and_says_so(
    entry, organizer
):
    declared_here(entry)
    register("unlike", drive_kind=other_drive())
    run = start(entry, organizer)
    assert run.routed_host == ""
    assert run.message.startswith("No live verification host serving sqlite is comparable")
    assert "general rerun.sqlite queue" in run.message


def test_a_host_that_stopped_beating_drops_out_of_routing(entry, organizer, settings):
    declared_here(entry)
    stale = timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5)
    register("gone", now=stale)
    register("live", drive_kind=other_drive())
    names = [
        each.name
        for each in fleet.host_choices(submission=entry, target=rerun_targets()["sqlite"], scale=1)
    ]
    assert names == ["live"]
    assert start(entry, organizer).routed_host == ""


# --- a host that disappears mid-run -------------------------------------------------------------


def stalled(entry, organizer, settings, host: str) -> VerificationRun:
    """A run on `host` that reported progress, then its worker stopped beating."""
    run = start(entry, organizer)
    assert run.routed_host == host
    long_ago = timezone.now() - timedelta(seconds=settings.RERUN_HEARTBEAT_TIMEOUT + 30)
    VerificationRun.objects.filter(pk=run.pk).update(
        status=RerunStatus.RUNNING, worker=f"w@{host}", heartbeat_at=long_ago
    )
    RerunSample.objects.create(
        run=run, rows=1_000, seconds=1, interval_rate=1_000, cumulative_rate=1_000
    )
    return run


def test_a_run_whose_host_died_resumes_on_another_comparable_host(entry, organizer, settings):
    declared_here(entry)
    register("first")
    run = stalled(entry, organizer, settings, "first")
    VerificationHost.objects.filter(name="first").delete()  # its worker's beat is gone too
    worker_beat(
        worker="w@first",
        queues=["rerun.sqlite@first"],
        now=timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5),
    )
    register("second")
    assert services.reruns_sweep() == 1
    run.refresh_from_db()
    assert run.status == RerunStatus.QUEUED and run.resumes == 1
    assert run.routed_host == "second"
    assert run.message.endswith("to continue from its table on host second.")


def test_a_run_whose_host_died_is_not_resumed_on_an_unlike_host(entry, organizer, settings):
    declared_here(entry)
    register("first")
    run = stalled(entry, organizer, settings, "first")
    VerificationHost.objects.filter(name="first").update(
        last_seen=timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5)
    )
    register("unlike", drive_kind=other_drive())
    assert services.reruns_sweep() == 1
    run.refresh_from_db()
    assert run.status == RerunStatus.FAILED
    assert run.message.startswith("The worker on host first stopped (no heartbeat for more than ")
    assert "no other live host is comparable with the entry's declared one: not resumed" in (
        run.message
    )


# --- what the organizer sees -------------------------------------------------------------------


def test_the_api_and_the_page_list_every_host_with_its_facts(client, organizer, settings):
    register("here")
    register(
        "away",
        now=timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5),
        drive_model="<b>Disk</b>",
    )
    client.force_login(organizer)
    answer = client.get("/api/verification-hosts/").json()
    hosts = {each["name"]: each for each in answer["results"]}
    assert answer["count"] == 2
    assert hosts["here"]["alive"] and not hosts["away"]["alive"]
    assert hosts["here"]["queues"] == ["rerun.sqlite", "rerun.sqlite@here"]
    assert hosts["here"]["facts"]["cores"] == this_host()["cores"]
    assert hosts["here"]["calibration"] == "not calibrated"
    assert hosts["away"]["last_seen"] < hosts["here"]["last_seen"]
    page = client.get("/verification-hosts/").content.decode()
    assert 'data-host="here"' in page and 'data-host="away"' in page
    assert "&lt;b&gt;Disk&lt;/b&gt;" in page and "<b>Disk</b>" not in page
    assert page.count("not calibrated") == 2


def test_the_rerun_form_shows_which_live_hosts_are_comparable_and_why_not(client, entry, organizer):
    declared_here(entry)
    register("alike")
    register("unlike", cores=this_host()["cores"] * 8)
    client.force_login(organizer)
    page = client.get(entry.get_absolute_url()).content.decode()
    assert 'data-host="alike" data-comparable="yes"' in page
    assert 'data-host="unlike" data-comparable="no"' in page
    assert f"{this_host()['cores'] * 8} cores, the entry {this_host()['cores']}" in page
    assert 'href="/verification-hosts/"' in page


def test_the_form_of_an_entry_of_declared_figures_compares_at_full_size(client, organizer):
    # A crash recovery entry has no claimed time to take a default scale from.
    entry = track_entry("crash_recovery", {"recovery_seconds": 13.0, "engine": "InnoDB"})
    entry.elapsed_seconds = 0
    entry.save(update_fields=["elapsed_seconds"])
    register("alike", memory_gb=entry.memory_gb)
    worker_beat(worker="w@alike", queues=["rerun.recovery-mariadb", "rerun.recovery-mariadb@alike"])
    client.force_login(organizer)
    page = client.get(entry.get_absolute_url())
    assert page.status_code == 200
    assert 'data-host="alike" data-comparable="yes"' in page.content.decode()


def test_a_run_queued_for_a_host_that_went_away_is_sent_to_another_comparable_one(
    entry, organizer, settings, broker_settings
):
    broker_settings("filesystem")
    declared_here(entry)
    register("first")
    run = start(entry, organizer)
    assert run.routed_host == "first"
    old = timezone.now() - timedelta(seconds=settings.RERUN_RESEND_SECONDS + 5)
    VerificationRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
    VerificationHost.objects.filter(name="first").update(
        last_seen=timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5)
    )
    register("second")
    assert services.reruns_resend() == 1
    run.refresh_from_db()
    assert run.routed_host == "second" and run.status == RerunStatus.QUEUED
    # The second goes away too, and no comparable host is left: the general queue, said so.
    VerificationRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
    VerificationHost.objects.filter(name="second").update(
        last_seen=timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5)
    )
    assert services.reruns_resend() == 1
    run.refresh_from_db()
    assert run.routed_host == ""
    assert run.message.startswith("No live verification host serving sqlite is comparable")


def test_the_hosts_list_says_each_hosts_calibration_fresh_stale_running_or_failed(
    client, organizer, settings
):
    from runner.models import CalibrationStatus, HostCalibration

    now = timezone.now()
    for name in ("fresh", "stale", "failing"):
        register(name)
    old = now - timedelta(days=settings.RERUN_CALIBRATION_MAX_AGE_DAYS + 1)
    could = "; with 3 reruns it could refute a claim 1.10x too fast."
    for host, measured in (("fresh", now), ("stale", old)):
        HostCalibration.objects.create(
            host=host, target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
            status=CalibrationStatus.DONE, runs=5, started_at=measured, measured_at=measured,
            message=f"5 runs of the demo band; other work at most 0.06 cores{could}",
        )  # fmt: skip
    HostCalibration.objects.create(
        host="stale", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=CalibrationStatus.RUNNING, started_at=now,
    )  # fmt: skip
    HostCalibration.objects.create(
        host="failing", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=CalibrationStatus.FAILED, started_at=now, message="the host was busy",
    )  # fmt: skip
    client.force_login(organizer)
    hosts = {
        each["name"]: each["calibration"]
        for each in client.get("/api/verification-hosts/").json()["results"]
    }
    assert hosts["fresh"].startswith("mariadb: 5 runs of demo-tenth on ")
    # What the host's calibration can tell apart, as it measured it.
    assert hosts["fresh"].endswith("(fresh), could refute a claim 1.10x too fast")
    assert "(stale)" in hosts["stale"] and "calibrating now (running)" in hosts["stale"]
    assert hosts["failing"] == "mariadb: the last calibration failed: the host was busy"
    page = client.get("/verification-hosts/").content.decode()
    assert "the last calibration failed: the host was busy" in page


def test_the_hosts_list_names_each_hosts_engines_and_its_reference_speed_and_trend(
    client, organizer, settings
):
    from runner.models import CalibrationStatus, HostCalibration

    register("here")  # serves rerun.sqlite, as register() names its queues
    now = timezone.now()
    # Three calibrations of the demo band, newest first: 5,000 then 4,000 then 5,500 rows/s.
    for days, rates in ((0, (4_900, 5_000, 5_100)), (3, (4_000, 4_100, 3_900)), (6, (5_500,))):
        measured = now - timedelta(days=days)
        HostCalibration.objects.create(
            host="here", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
            status=CalibrationStatus.DONE, runs=len(rates), started_at=measured,
            measured_at=measured, figures=[{"average_rate": rate} for rate in rates],
        )  # fmt: skip
    HostCalibration.objects.create(
        host="here", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
        status=CalibrationStatus.FAILED, started_at=now, message="busy",
    )  # fmt: skip
    client.force_login(organizer)
    host = client.get("/api/verification-hosts/").json()["results"][0]
    assert host["engines"] == {"sqlite": rerun_targets()["sqlite"].engines}
    speeds = host["reference_speeds"]
    assert [each["rows_per_second"] for each in speeds[0]["history"]] == [5_000, 4_000, 5_500]
    page = client.get("/verification-hosts/").content.decode()
    assert (
        "mariadb, demo-tenth: 5,000 rows/s (against the 2 calibrations before: 1.25x, 0.91x)"
        in page
    )
    assert f"sqlite: {', '.join(rerun_targets()['sqlite'].engines)}" in page


def test_the_hosts_list_shows_the_fixed_references_speed_and_a_calibration_gone_stale(
    client, organizer
):
    from runner.models import CalibrationStatus, HostCalibration

    register("here")
    now = timezone.now()
    for days, quiet in ((0, 30_000.0), (2, 24_000.0)):
        measured = now - timedelta(days=days)
        HostCalibration.objects.create(
            host="here", target="mariadb", reference="demo-tenth", scale=10, rows=300_000,
            status=CalibrationStatus.DONE, runs=3, started_at=measured, measured_at=measured,
            figures=[{"average_rate": 5_000}], reference_rate=quiet,
            stale="The host's reference speed moved +25%" if days == 0 else "",
        )  # fmt: skip
    client.force_login(organizer)
    host = client.get("/api/verification-hosts/").json()["results"][0]
    fixed = [each for each in host["reference_speeds"] if each["reference"] != "demo-tenth"]
    assert [each["rows_per_second"] for each in fixed[0]["history"]] == [30_000, 24_000]
    assert "(stale: The host's reference speed moved +25%)" in host["calibration"]
    page = client.get("/verification-hosts/").content.decode()
    assert (
        "mariadb, fixed reference workload: 30,000 rows/s (against the 1 calibration before: "
        "1.25x)" in page
    )
