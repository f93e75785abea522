"""Issue 30: the rerun form offers only the targets a live worker serves (the worker's own
heartbeat per queue), and a queued run whose queue has no worker says so."""

import pytest
from django.conf import settings

from runner import services
from runner.fleet import host_name, host_queues
from runner.forms import RerunForm
from runner.heartbeats import served_queues, worker_beat
from runner.models import WorkerBeat
from runner.targets import rerun_targets
from testing.worker import wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# The queues testing/worker.py's worker consumes.
WORKER_QUEUES = {
    "celery",
    "rerun.sqlite",
    "rerun.mariadb",
    "rerun.mariadb-shared",
    "rerun.postgresql",
    "rerun.recovery-mariadb",
}


def offered() -> list[str]:
    return [name for name, _ in RerunForm().fields["target"].choices]


def test_the_form_offers_only_the_targets_a_live_worker_serves(worker):
    assert offered() == []  # no worker: nothing a run could be sent to
    running = worker(broker="filesystem")
    wait_until(lambda: WorkerBeat.objects.exists())
    # Each rerun queue is served as the worker's host's own queue too (runner/fleet.py).
    host = host_name(WorkerBeat.objects.first().worker)
    assert served_queues() == WORKER_QUEUES | set(host_queues(sorted(WORKER_QUEUES), host))
    expected = [name for name, t in rerun_targets().items() if t.queue in WORKER_QUEUES]
    assert offered() == expected
    # What `make run`'s worker does not consume is not offered (postgresql-shared, ...).
    assert set(settings.RERUN_TARGETS) - set(expected) == {
        name for name, t in rerun_targets().items() if t.queue not in WORKER_QUEUES
    }
    running.stop()
    wait_until(lambda: not WorkerBeat.objects.exists())
    assert offered() == []


def test_a_queued_run_whose_queue_has_no_worker_warns(client, entry, organizer, rerun_dir):
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer, comparison=True
    )
    client.force_login(organizer)
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "No live worker serves the <code>rerun.sqlite</code> queue" in page
    assert f'id="rerun-{run.pk}"' in page
    # The API says the same of the run.
    answer = client.get(f"/api/reruns/{run.pk}/").json()
    assert answer["warning"].startswith("No live worker serves the rerun.sqlite queue")
    # A worker beats for the queue: the run is waiting its turn, nothing to warn about.
    worker_beat(worker="w1@host", queues=["rerun.sqlite"])
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "No live worker serves" not in page
    assert client.get(f"/api/reruns/{run.pk}/").json()["warning"] == ""
    assert "sqlite" in offered()


def test_the_rerun_api_warns_when_it_queues_a_run_no_worker_will_take(client, entry, organizer):
    client.force_login(organizer)
    answer = client.post(
        f"/api/submissions/{entry.pk}/reruns/",
        {"target": "sqlite", "rows": 20_000, "comparison": True},
        content_type="application/json",
    )
    assert answer.status_code == 202, answer.content
    assert answer.json()["warning"].startswith("No live worker serves the rerun.sqlite queue")


def test_a_beat_older_than_the_stale_limit_serves_nothing(entry):
    from datetime import timedelta

    from django.utils import timezone

    old = timezone.now() - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS + 5)
    worker_beat(worker="gone@host", queues=["rerun.sqlite"], now=old)
    assert served_queues() == set()
    assert offered() == []
