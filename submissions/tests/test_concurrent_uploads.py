"""Twenty uploads at once to the production server (gunicorn, its workers in parallel, the real
PostgreSQL): twenty different logs are all stored exactly once; the same log twenty times is
stored once and refused nineteen times, clearly, never with a 500."""

import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from submissions.models import SampleSeries, Submission
from testing.entries import DECLARED
from testing.factories import ContestFactory
from testing.hostile import multipart
from testing.logs import python_log

pytestmark = pytest.mark.django_db(transaction=True)

AT_ONCE = 20


def tokens(count: int) -> list[str]:
    users = [get_user_model().objects.create(username=f"racer{i}") for i in range(count)]
    return [Token.objects.create(user=user).key for user in users]


def post_all(url: str, keys: list[str], logs: list[bytes]) -> list[tuple[int, str]]:
    """POST every log with its token, all released at the same moment."""
    start = threading.Barrier(len(logs))

    def post(key: str, log: bytes) -> tuple[int, str]:
        fields = {
            "contest": "race",
            **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in DECLARED.items()},
        }
        parts = [(name, value, None, None) for name, value in fields.items()]
        body, content_type = multipart([*parts, ("log", log, "run.log", "text/plain")])
        request = urllib.request.Request(  # noqa: S310 - the test's own loopback server
            url, data=body, method="POST",
            headers={"Authorization": f"Token {key}", "Content-Type": content_type},
        )  # fmt: skip
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    with ThreadPoolExecutor(max_workers=len(logs)) as pool:
        return list(pool.map(post, keys, logs))


def stored_files(site) -> set:
    return {path for path in site.media_root.rglob("*") if path.is_file()}


def test_twenty_different_logs_at_once_are_all_stored_exactly_once(live_site):
    ContestFactory(slug="race", target_rows=5_000_000)
    keys = tokens(AT_ONCE)
    # Each a different time to the target, so each gets its own rank.
    logs = [
        python_log(rates=[90_000.0 - 1_000 * i, 80_000.0, 70_000.0, 60_000.0, 50_000.0])
        for i in range(AT_ONCE)
    ]
    files_before = stored_files(live_site)

    answers = post_all(f"{live_site.url}/api/submissions/", keys, logs)

    assert [status for status, _ in answers] == [201] * AT_ONCE, answers
    assert Submission.objects.count() == AT_ONCE
    assert Submission.objects.values("log_sha256").distinct().count() == AT_ONCE
    assert SampleSeries.objects.count() == AT_ONCE
    assert len(stored_files(live_site) - files_before) == AT_ONCE
    ranks = sorted(entry.rank for entry in Submission.objects.all())
    assert ranks == list(range(1, AT_ONCE + 1))  # each ranked once, against all the others


def test_the_same_log_twenty_times_at_once_is_stored_once(live_site):
    ContestFactory(slug="race", target_rows=5_000_000)
    keys = tokens(AT_ONCE)
    files_before = stored_files(live_site)

    answers = post_all(f"{live_site.url}/api/submissions/", keys, [python_log()] * AT_ONCE)

    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] + [400] * (AT_ONCE - 1), answers
    entry = Submission.objects.get()
    refusals = [body for status, body in answers if status == 400]
    assert all(
        f"already submitted to this contest as entry #{entry.pk}" in body for body in refusals
    )
    assert len(stored_files(live_site) - files_before) == 1
