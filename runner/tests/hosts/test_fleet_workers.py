"""Issue 33 §1, done when: two real Celery workers on this machine under different host names,
one with its facts set in its settings (as an organizer describes a host /proc misreads), and
verifications routed to each by host facts; a host that stops beating drops out of routing."""

import json
import os
import signal

import pytest

from runner import fleet, services
from runner.host import this_host
from runner.models import RerunKind, RerunStatus
from runner.targets import rerun_targets
from submissions.entries import services as entry_services
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.logs import python_log
from testing.worker import Worker, finished, wait_for, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# The organizer's description of the second host: what it says overrides /proc and /sys.
DESCRIBED = {
    "cpu_model": "EPYC as its organizer describes it",
    "cores": 64,
    "drive_kind": "nvme" if this_host()["drive_kind"] != "nvme" else "ssd",
    "drive_model": "Organizer NVMe 3.84TB",
}


def sqlite_entry(**hardware):
    """An SQLite entry (a verification on the sqlite target, the fastest real rerun)."""
    declared = {
        **DECLARED,
        "server_family": "sqlite",
        "server_version": "3.40.1",
        "storage_engine": "SQLite",
        "server_config": "",
        **hardware,
    }
    contest = ContestFactory(
        target_rows=5_000_000, rerun_tolerance=0.25, max_cores=None, max_memory_gb=None
    )
    return entry_services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared=declared,
        log_file=upload(python_log(rows=2_000_000, rates=[5_000.0, 5_000.0])),
    )


@pytest.fixture
def two_hosts(tmp_path, broker_settings, iibench_binary):
    """Worker `alike` reads its facts; worker `unlike` has them set in its settings."""
    broker_settings("redis")  # one broker for both, emptied once
    common = {"RERUN_WORKER_BEAT_SECONDS": "1"}
    started = [
        Worker(tmp_path, "redis", "alike", ready=False, **common),
        Worker(
            tmp_path,
            "redis",
            "unlike",
            ready=False,
            RERUN_HOST_FACTS=json.dumps(DESCRIBED),
            **common,
        ),
    ]
    for each in started:
        each.wait_ready()
    yield started
    for each in started:
        each.stop()


def live_hosts(entry) -> dict:
    return {
        each.name: each
        for each in fleet.host_choices(submission=entry, target=rerun_targets()["sqlite"], scale=1)
    }


def test_verifications_are_routed_between_two_real_workers_by_host_facts(
    two_hosts, organizer, client, settings
):
    here = this_host()
    like_here = sqlite_entry(
        cores=here["cores"], memory_gb=here["memory_gb"], drive_kind=here["drive_kind"]
    )
    like_described = sqlite_entry(
        cores=DESCRIBED["cores"],
        memory_gb=here["memory_gb"],
        drive_kind=DESCRIBED["drive_kind"],
    )
    wait_until(lambda: set(live_hosts(like_here)) == {"alike", "unlike"})
    choices = live_hosts(like_here)
    assert choices["alike"].comparable and not choices["unlike"].comparable
    assert "64 cores" in choices["unlike"].sentence

    runs = [
        services.rerun_start(submission=entry, target="sqlite", rows=20_000, requested_by=organizer)
        for entry in (like_here, like_described)
    ]
    assert [run.kind for run in runs] == [RerunKind.VERIFICATION] * 2
    assert [run.routed_host for run in runs] == ["alike", "unlike"]
    for run, host in zip(runs, ("alike", "unlike"), strict=True):
        run = wait_for(run, finished)
        assert run.status == RerunStatus.SUCCEEDED, run.message
        assert run.worker.endswith(f"@{host}")  # the worker of that host took it
        assert run.host_comparable is True
    assert wait_for(runs[1], finished).host["cores"] == 64  # measured as the described host

    # The API and the page list both hosts, with their facts and when last seen.
    client.force_login(organizer)
    hosts = {
        each["name"]: each for each in client.get("/api/verification-hosts/").json()["results"]
    }
    assert hosts["alike"]["facts"]["cpu_model"] == here["cpu_model"]
    assert hosts["unlike"]["facts"]["cpu_model"] == DESCRIBED["cpu_model"]
    assert hosts["unlike"]["overridden"] == sorted(DESCRIBED)
    assert all(each["alive"] and each["last_seen"] for each in hosts.values())
    assert "rerun.sqlite@unlike" in hosts["unlike"]["queues"]
    page = client.get("/verification-hosts/").content.decode()
    assert DESCRIBED["drive_model"] in page and 'data-host="alike"' in page

    # The described host's worker is killed: once its beat is stale it is out of routing, and
    # an entry like it goes to the general queue, where the other host judges its shape only.
    unlike = two_hosts[1]
    os.kill(unlike.process.pid, signal.SIGKILL)
    unlike.process.wait()
    settings.RERUN_WORKER_BEAT_STALE_SECONDS = 3
    wait_until(lambda: set(live_hosts(like_described)) == {"alike"})
    run = services.rerun_start(
        submission=like_described, target="sqlite", rows=20_000, requested_by=organizer
    )
    assert run.routed_host == ""
    assert run.message.startswith("No live verification host serving sqlite is comparable")
    run = wait_for(run, finished)
    assert run.worker.endswith("@alike")
    assert run.host_comparable is False
    assert run.verdict not in ("reproduced", "not_reproduced")
