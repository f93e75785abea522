"""Two entries of one contest saved at the same moment, in two database sessions: both are
stored and ranked against each other, neither fails."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from submissions.entries import services
from submissions.models import Submission
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.logs import python_log

# Two database sessions writing at once: what PostgreSQL serves, not the embedded SQLite.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql]


def test_two_entries_stored_at_the_same_moment_are_both_ranked(monkeypatch):
    contest = ContestFactory(target_rows=5_000_000)
    owners = [UserFactory(), UserFactory()]
    logs = [python_log(rates=[rate, 50_000.0, 40_000.0, 30_000.0, 20_000.0]) for rate in (9e4, 8e4)]
    # The second upload inserts its entry while the first is still storing its series (seconds,
    # for a 2,000,000-sample run): the moment two gunicorn workers meet.
    first_inserted = threading.Event()
    store_series = services._store_series

    def store_series_slowly(submission, parsed):
        store_series(submission, parsed)
        if not first_inserted.is_set():
            first_inserted.set()
            time.sleep(1.0)

    monkeypatch.setattr(services, "_store_series", store_series_slowly)

    def save(owner, log, after_the_first):
        if after_the_first:
            first_inserted.wait(timeout=10)
        try:
            return services.entry_create(
                contest=contest, owner=owner, declared=dict(DECLARED), log_file=upload(log)
            ).pk
        finally:
            connection.close()  # this thread's own session

    with ThreadPoolExecutor(max_workers=2) as pool:
        saved = list(pool.map(save, owners, logs, (False, True)))

    ranks = {entry.pk: entry.rank for entry in Submission.objects.all()}
    assert ranks == {saved[0]: 1, saved[1]: 2}
