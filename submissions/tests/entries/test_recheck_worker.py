"""The background re-check through a real Celery worker and Redis: an organizer changes the
memory cap in the admin and, without anyone running an action, the entry is judged under the
new rules; its page never shows a verdict of one version beside a sentence of another."""

import time

import pytest
from django.conf import settings

from submissions.entries import services
from submissions.models import Recheck, RecheckStatus
from testing.entries import upload
from testing.factories import ContestFactory, StaffFactory, UserFactory
from testing.logs import python_log
from testing.rule_versions import admin_change_memory_cap, verdict_row

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def iibench_binary() -> str:
    return str(settings.IIBENCH_BINARY)


def wait_for_recheck(contest, timeout: float = 60) -> Recheck:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        recheck = Recheck.objects.filter(contest=contest).order_by("-queued_at").first()
        if recheck and recheck.finished:
            return recheck
        time.sleep(0.2)
    pytest.fail(f"the re-check never finished: {recheck and recheck.status}")


def entries(contest, declared, count: int) -> list:
    owner = UserFactory()
    return [
        services.entry_create(
            contest=contest,
            owner=owner,
            declared={**declared, "memory_gb": 24},
            # Each its own log (one entry per log per contest): rates differ a little.
            log_file=upload(python_log(rates=[100_000 + n, 90_000, 80_000, 70_000, 60_000])),
        )
        for n in range(count)
    ]


def test_a_memory_cap_changed_in_the_admin_is_applied_by_the_worker(client, request, declared):
    running = request.getfixturevalue("worker")("redis", MEDIA_ROOT=settings.MEDIA_ROOT)
    contest = ContestFactory(target_rows=5_000_000)
    judged = entries(contest, declared, 3)
    assert not any(entry.eligible for entry in judged)
    admin_change_memory_cap(client, StaffFactory(is_superuser=True), contest, 32)
    page = client.get(contest.get_absolute_url()).content.decode()
    assert "Rules v2, changed" in page and "memory cap 16 -&gt; 32 GB" in page
    recheck = wait_for_recheck(contest)
    assert recheck.status == RecheckStatus.DONE, (recheck.message, running.log[-2000:])
    assert (recheck.checked, recheck.total, recheck.unreadable) == (3, 3, 0)
    assert recheck.started_at >= recheck.queued_at and recheck.finished_at >= recheck.started_at
    client.logout()
    for entry in judged:
        entry.refresh_from_db()
        assert entry.eligible and entry.rules_version.number == 2
        page = client.get(entry.get_absolute_url()).content.decode()
        row = verdict_row(page, "GB of memory")
        assert "at most 32 GB" in row and "within the limit of 32" in row


def test_a_recheck_the_broker_lost_is_sent_again_by_the_sweep(client, request, declared, settings):
    start_worker = request.getfixturevalue("worker")
    contest = ContestFactory(target_rows=5_000_000)
    (entry,) = entries(contest, declared, 1)
    # The broker is down when the rules change: the change is saved, the re-check stays queued.
    from iibench_site.celery import app

    app.conf.broker_url = "redis://127.0.0.1:1/0"
    from testing.worker import reset_connections

    reset_connections(app)
    contest.max_memory_gb = 32
    contest.save()
    recheck = Recheck.objects.get(contest=contest)
    assert recheck.status == RecheckStatus.QUEUED and recheck.sent_count == 0
    # The broker is back and a worker starts: its start-up sweep sends the queued re-check.
    start_worker("redis", MEDIA_ROOT=settings.MEDIA_ROOT, RECHECK_STALE_SECONDS="0")
    recheck = wait_for_recheck(contest)
    assert recheck.status == RecheckStatus.DONE
    entry.refresh_from_db()
    assert entry.eligible and entry.rules_version.number == 2
