"""Twenty uploads at once to the production server (gunicorn, its workers in parallel, the real
PostgreSQL): the site reads LOG_READS_AT_ONCE of them at once and answers the others 503 with
Retry-After, storing nothing of them; each client then retries as told until its log is read.
Twenty different logs are all stored exactly once; the same log twenty times is stored once
and refused nineteen times, clearly, never with a 500."""

import random
import threading
import time
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

Answer = tuple[int, str, str | None]  # status, body, Retry-After


def tokens(count: int) -> list[str]:
    users = [get_user_model().objects.create(username=f"racer{i}") for i in range(count)]
    return [Token.objects.create(user=user).key for user in users]


def post(url: str, key: str, log: bytes) -> Answer:
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
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            return response.status, response.read().decode(), response.headers["Retry-After"]
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers["Retry-After"]


def post_all(url: str, keys: list[str], logs: list[bytes]) -> list[Answer]:
    """POST every log with its token, all released at the same moment."""
    start = threading.Barrier(len(logs))

    def one(key: str, log: bytes) -> Answer:
        start.wait()
        return post(url, key, log)

    with ThreadPoolExecutor(max_workers=len(logs)) as pool:
        return list(pool.map(one, keys, logs))


def retry_until_read(url: str, keys: list[str], logs: list[bytes]) -> list[Answer]:
    """Each client sends its log again after the Retry-After it was told (and a random part of
    a second, as clients do, so they do not all come back at the same instant) until the site
    reads it."""

    def one(key: str, log: bytes) -> Answer:
        answer = (503, "", "0")
        for _ in range(100):
            if answer[0] != 503:
                return answer
            time.sleep(float(answer[2]) + random.uniform(0, 1))
            answer = post(url, key, log)
        pytest.fail(f"still refused after 100 tries: {answer}")

    with ThreadPoolExecutor(max_workers=max(1, len(logs))) as pool:
        return list(pool.map(one, keys, logs))


def assert_read_or_told_to_retry(answers: list[Answer], read: set[int]) -> None:
    for status, body, retry_after in answers:
        assert status in read or (status == 503 and "LOG_READS_AT_ONCE" in body), body[:500]
        if status == 503:
            assert int(retry_after) > 0


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
    url = f"{live_site.url}/api/submissions/"

    first = post_all(url, keys, logs)

    assert_read_or_told_to_retry(first, read={201})
    stored = sum(status == 201 for status, _, _ in first)
    assert stored < AT_ONCE, "twenty read at once: the site's bound did not hold"
    # Nothing of a refused one is half stored: no row, no series, no file.
    assert Submission.objects.count() == SampleSeries.objects.count() == stored
    assert len(stored_files(live_site) - files_before) == stored
    told = [n for n, (status, _, _) in enumerate(first) if status == 503]
    again = retry_until_read(url, [keys[n] for n in told], [logs[n] for n in told])

    assert [status for status, _, _ in again] == [201] * len(told), again
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
    url = f"{live_site.url}/api/submissions/"
    log = python_log()

    first = post_all(url, keys, [log] * AT_ONCE)

    assert_read_or_told_to_retry(first, read={201, 400})
    assert Submission.objects.count() == sum(status == 201 for status, _, _ in first) <= 1
    told = [n for n, (status, _, _) in enumerate(first) if status == 503]
    again = retry_until_read(url, [keys[n] for n in told], [log] * len(told))

    answers = [answer for answer in first if answer[0] != 503] + again
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [201] + [400] * (AT_ONCE - 1), answers
    entry = Submission.objects.get()
    refusals = [body for status, body, _ in answers if status == 400]
    assert all(
        f"already submitted to this contest as entry #{entry.pk}" in body for body in refusals
    )
    assert len(stored_files(live_site) - files_before) == 1
