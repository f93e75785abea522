"""The site reads at most LOG_READS_AT_ONCE logs at once (issue 40), uploads, form posts and
previews of every account together: one past it is answered 503 with Retry-After at once,
never held waiting, so with gunicorn's sync workers a page always finds a worker free."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import pytest
import redis
from django.core.cache import cache
from rest_framework.authtoken.models import Token

from submissions.models import Submission
from submissions.web import throttle
from submissions.web.throttle import upload_slot
from testing.bombs import bomb_bytes, real_log
from testing.entries import DECLARED
from testing.factories import ContestFactory, UserFactory
from testing.hostile import multipart
from testing.logs import python_log
from testing.uploads import post, what_the_client_reads
from testing.worker import REDIS_TEST_URL

UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on the discard port
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}


def assert_site_busy(channel: str, response) -> None:
    assert response.status_code == 503
    said = what_the_client_reads(channel, response)
    assert "LOG_READS_AT_ONCE" in said
    assert "The site is reading 1 log already" in said
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db
@pytest.mark.parametrize("channel", ["api", "preview", "form"])
def test_a_log_past_the_sites_reads_at_once_is_a_503_and_is_read_once_one_ends(
    channel, settings, contest, entrant
):
    settings.LOG_READS_AT_ONCE = 1
    cache.clear()
    with upload_slot(UserFactory()) as another_accounts_read:
        assert another_accounts_read.refusal is None
        refused = post(channel, entrant, contest, python_log())
    assert_site_busy(channel, refused)
    assert Submission.objects.count() == 0
    again = post(channel, entrant, contest, python_log())
    assert again.status_code in (200, 201, 302), what_the_client_reads(channel, again)


@pytest.mark.django_db
def test_a_refused_read_costs_its_user_no_try_of_the_hour(settings, contest, entrant):
    settings.LOG_READS_AT_ONCE = 1
    settings.REFUSED_UPLOADS_PER_HOUR = 1
    cache.clear()
    with upload_slot(UserFactory()):
        for _ in range(3):
            assert post("preview", entrant, contest, real_log()).status_code == 503
    assert post("preview", entrant, contest, real_log()).status_code == 200


@pytest.mark.django_db
def test_the_users_own_lock_answers_before_the_sites_bound(settings, contest, entrant):
    # The user's second request is a 429 and takes none of the site's reads: another account
    # still gets the second one.
    settings.LOG_READS_AT_ONCE = 2
    cache.clear()
    with upload_slot(entrant):
        assert post("preview", entrant, contest, real_log()).status_code == 429
        assert post("preview", UserFactory(), contest, real_log()).status_code == 200


@pytest.mark.django_db
def test_the_sites_reads_are_slots_in_redis_that_expire_if_their_worker_dies(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_TEST_URL,
        }
    }
    settings.LOG_READS_AT_ONCE = 2
    server = redis.Redis.from_url(REDIS_TEST_URL)
    server.delete(":1:log-read-slot:0", ":1:log-read-slot:1")
    with upload_slot(UserFactory()) as first, upload_slot(UserFactory()) as second:
        with upload_slot(UserFactory()) as third:
            assert (first.refusal, second.refusal) == (None, None)
            assert third.refusal is not None and third.refusal.status == 503
        lives = [server.ttl(f":1:log-read-slot:{n}") for n in range(2)]
        assert all(0 < seconds <= settings.LOG_PARSE_SECONDS + 90 for seconds in lives), lives
    assert server.exists(":1:log-read-slot:0", ":1:log-read-slot:1") == 0


@pytest.mark.django_db
def test_without_a_reachable_cache_the_bound_holds_in_the_process(settings, contest, entrant):
    settings.CACHES = UNREACHABLE_REDIS
    settings.LOG_READS_AT_ONCE = 1
    with upload_slot(UserFactory()) as held:
        assert held.refusal is None
        assert throttle._here.site_reads == 1
        busy = post("preview", entrant, contest, real_log())
    assert_site_busy("preview", busy)
    assert throttle._here.site_reads == 0
    assert post("preview", entrant, contest, real_log()).status_code == 200


# -- the production server: gunicorn's sync workers ---------------------------------------------


def send(url: str, key: str, log: bytes) -> tuple[int, str, str | None]:
    """An API upload: its status, body and Retry-After."""
    fields = {
        "contest": "bombs",
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in DECLARED.items()},
    }
    parts = [(name, value, None, None) for name, value in fields.items()]
    body, content_type = multipart([*parts, ("log", log, "run.log.gz", "application/gzip")])
    request = urllib.request.Request(  # noqa: S310 - the test's own loopback server
        f"{url}/api/submissions/", data=body, method="POST",
        headers={"Authorization": f"Token {key}", "Content-Type": content_type},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            return response.status, response.read().decode(), response.headers["Retry-After"]
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers["Retry-After"]


@pytest.mark.django_db(transaction=True)
def test_gunicorn_reads_its_bound_of_slow_logs_refuses_the_next_and_answers_pages(live_site):
    ContestFactory(slug="bombs", target_rows=5_000_000)
    reads = live_site.workers - 1  # LOG_READS_AT_ONCE's default: one worker kept for pages
    keys = [Token.objects.create(user=UserFactory()).key for _ in range(reads + 1)]
    # Trailer lines are the slowest to reach the line limit (3,000,000): seconds of a worker's
    # time each, for a few hundred KB sent.
    log = bomb_bytes("trailer", "gzip", 3_000_100)
    start = threading.Barrier(reads + 1)

    def upload(key: str) -> tuple[int, str, str | None]:
        start.wait()
        return send(live_site.url, key, log)

    with ThreadPoolExecutor(max_workers=reads + 1) as pool:
        uploads = [pool.submit(upload, key) for key in keys]
        done, _ = wait(uploads, timeout=120, return_when=FIRST_COMPLETED)
        status, body, _ = next(iter(done)).result()
        assert status == 503, body[:500]  # the first answer: the one past the bound, at once
        with urllib.request.urlopen(f"{live_site.url}/", timeout=120) as page:  # noqa: S310
            assert page.status == 200
        # The page was answered while every read the site took was still in flight.
        assert sum(not future.done() for future in uploads) == reads
        answers = [future.result() for future in uploads]

    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [413] * reads + [503], answers
    refused = next(answer for answer in answers if answer[0] == 503)
    assert "LOG_READS_AT_ONCE" in refused[1] and f"reading {reads} logs already" in refused[1]
    assert int(refused[2]) > 0
    for status, body, _ in answers:
        if status == 413:
            assert "LOG_MAX_LINES" in body
    assert not redis.Redis.from_url(REDIS_TEST_URL).keys("*log-read-slot*")  # all released
    assert "WORKER TIMEOUT" not in live_site.log
