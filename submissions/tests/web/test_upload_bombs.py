"""Work bounded by what was sent (issue 40): a log of millions of comment, blank or trailer
lines, plain, gzipped or in many gzip members, is refused at the first line past a limit with
a 413 naming the limit and the line, through the API, the form and the preview alike, before
the rest is read; reading one keeps nothing per line (the peak memory of a process reading the
bombs at the site's own limits); a parse has a deadline; each try is counted before its log
is read; and one user has one log read at a time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from rest_framework.authtoken.models import Token

from submissions.models import Submission
from submissions.web import throttle
from submissions.web.throttle import upload_slot
from testing.bombs import KINDS, PACKINGS, bomb_bytes, real_log
from testing.entries import DECLARED
from testing.factories import ContestFactory, UserFactory
from testing.hostile import multipart
from testing.logs import gzipped, python_log
from testing.uploads import post, what_the_client_reads

ROOT = Path(django_settings.BASE_DIR)
REAL_LINES = real_log().count(b"\n")

# A process that has read a bomb may have grown by its blocks (a megabyte or two each, the
# inflated ones too) and by nothing a line: a Django process with the parser loaded is about
# 130 MB here. A parser keeping ~320 bytes a distinct `# setting` line (as before the cap)
# would pass 900 MB at the 3,000,000 lines the site reads before it refuses.
PEAK_RSS_LIMIT = 260 << 20


# -- a process reading bombs, at the site's own limits ----------------------------------------


def read_in_a_process(specs: list[str], **environment: str) -> dict:
    """`python -m testing.bombs` with the test settings (the site's limits unless changed
    here): each bomb streamed into the upload's own read, never whole; its answers and peak."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "iibench_site.settings.test", **environment}
    done = subprocess.run(
        [sys.executable, "-m", "testing.bombs", *specs],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_bombs_at_the_sites_limits_are_refused_at_the_line_past_them_with_bounded_memory():
    # 50,000,000 lines each (100 MB of `#` lines, 50 MB of blank ones, 1.5 GB of settings),
    # read as uploads are; the trailers' kind at a lower limit below (the same line count).
    bombs = ["comment:gzip", "blank:members", "settings:plain"]
    result = read_in_a_process([f"{bomb}:50000000" for bomb in bombs])
    answers = {f"{a['kind']}:{a['packing']}": a for a in result["answers"]}
    for bomb in ("comment:gzip", "blank:members"):
        assert answers[bomb]["setting"] == "LOG_MAX_LINES"
        assert answers[bomb]["message"].startswith(
            "line 3,000,001: the log has more than 3,000,000 lines"
        )
    # A header of distinct settings is refused long before the line limit: each is kept.
    settings_bomb = answers["settings:plain"]
    assert "more than 10,000 parameters, settings" in settings_bomb["message"]
    assert settings_bomb["sent"] < 8 << 20  # a few blocks of the 1.5 GB it would be
    assert result["peak_rss_bytes"] < PEAK_RSS_LIMIT


def test_every_kind_and_packing_is_refused_at_the_line_limit_without_reading_the_rest():
    specs = [f"{kind}:{packing}:50000000" for kind in KINDS for packing in PACKINGS]
    result = read_in_a_process(specs, LOG_MAX_LINES="100000")
    for answer in result["answers"]:
        where = f"{answer['kind']}:{answer['packing']}"
        assert not answer["accepted"], where
        if answer["kind"] != "settings":
            assert answer["message"].startswith("line 100,001: the log has more than"), where
            assert answer["message"].endswith("(the limit: LOG_MAX_LINES)"), where
        # The rest was never read: a few blocks sent of 100 MB (plain) or more.
        assert answer["sent"] < 16 << 20, where
    assert result["peak_rss_bytes"] < PEAK_RSS_LIMIT


def test_a_real_log_is_read_whole_in_the_same_process():
    result = read_in_a_process(["comment:plain:0", "comment:members:1000"])
    assert [answer["accepted"] for answer in result["answers"]] == [True, True]
    assert [answer["lines"] for answer in result["answers"]] == [REAL_LINES, REAL_LINES + 1000]


# -- what the client sees ------------------------------------------------------------------


@pytest.fixture
def small_limits(settings):
    settings.LOG_MAX_LINES = 2_000
    settings.REFUSED_UPLOADS_PER_HOUR = 1_000
    cache.clear()
    return settings


# Every kind and packing through the API; the form and the preview read logs the same way
# (entries.logs.parsed_log): each kind, in many gzip members.
BOMB_REQUESTS = [
    *[("api", kind, packing) for kind in ("comment", "blank", "trailer") for packing in PACKINGS],
    *[(channel, kind, "members") for channel in ("form", "preview") for kind in KINDS],
]


@pytest.mark.django_db
@pytest.mark.parametrize(("channel", "kind", "packing"), BOMB_REQUESTS)
def test_a_bomb_is_a_413_naming_the_limit_and_the_line(
    channel, kind, packing, small_limits, contest, entrant
):
    response = post(channel, entrant, contest, bomb_bytes(kind, packing, 100_000))
    assert response.status_code == 413
    said = what_the_client_reads(channel, response)
    assert "line 2,001: the log has more than 2,000 lines" in said
    assert "LOG_MAX_LINES" in said
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_a_real_log_at_the_line_limit_is_stored_and_one_line_more_is_not(
    small_limits, contest, entrant
):
    small_limits.LOG_MAX_LINES = REAL_LINES + 500
    at_limit = bomb_bytes("comment", "gzip", 500)
    past = bomb_bytes("comment", "gzip", 501)
    refused = post("api", entrant, contest, past)
    assert refused.status_code == 413
    assert f"line {REAL_LINES + 501:,}" in refused.json()["log"][0]
    assert post("preview", entrant, contest, at_limit).status_code == 200
    stored = post("api", entrant, contest, at_limit)
    assert stored.status_code == 201, stored.content[:500]
    assert Submission.objects.get().series.count == 5


@pytest.mark.django_db
@pytest.mark.parametrize("channel", ["api", "preview", "form"])
def test_a_parse_past_its_deadline_is_a_413_naming_it(channel, small_limits, contest, entrant):
    small_limits.LOG_PARSE_SECONDS = 0.0
    response = post(channel, entrant, contest, gzipped(real_log()))
    assert response.status_code == 413
    said = what_the_client_reads(channel, response)
    assert "was not read within 0 seconds" in said
    assert "LOG_PARSE_SECONDS" in said


# -- counted before the work, one at a time ------------------------------------------------


@pytest.mark.django_db
def test_previews_count_against_the_tries_of_the_hour(settings, contest, entrant):
    settings.REFUSED_UPLOADS_PER_HOUR = 2
    cache.clear()
    answers = [post("preview", entrant, contest, real_log()).status_code for _ in range(3)]
    assert answers == [200, 200, 429]


@pytest.mark.django_db
def test_a_try_is_counted_before_its_log_is_read(settings, contest, entrant, monkeypatch):
    settings.REFUSED_UPLOADS_PER_HOUR = 1
    cache.clear()

    def killed(*args, **kwargs):  # what a worker killed mid-read never gets to: an answer
        raise SystemExit("killed while reading")

    monkeypatch.setattr("submissions.entries.logs.parse_log", killed)
    with pytest.raises(SystemExit):
        post("api", entrant, contest, real_log())
    monkeypatch.undo()
    again = post("api", entrant, contest, real_log())
    assert again.status_code == 429
    assert "sent 1 refused logs this hour" in again.json()["detail"]


@pytest.mark.django_db
def test_stored_entries_give_their_try_back(settings, contest, entrant):
    settings.REFUSED_UPLOADS_PER_HOUR = 1
    cache.clear()
    first = post("api", entrant, contest, python_log(rows=2_000_000))
    second = post("api", entrant, contest, python_log(rows=3_000_000))
    assert [first.status_code, second.status_code] == [201, 201]


@pytest.mark.django_db
@pytest.mark.parametrize("channel", ["api", "preview", "form"])
def test_a_second_log_of_the_same_user_waits_for_the_first(channel, settings, contest, entrant):
    cache.clear()
    with upload_slot(entrant) as held:
        assert held.refusal is None
        busy = post(channel, entrant, contest, real_log())
        other_user = post(channel, UserFactory(), contest, real_log())
    assert busy.status_code == 429
    assert "per-user upload lock" in what_the_client_reads(channel, busy)
    assert int(busy["Retry-After"]) > 0
    assert other_user.status_code != 429
    assert post(channel, entrant, contest, real_log()).status_code != 429


@pytest.mark.django_db
def test_without_a_reachable_cache_the_lock_holds_in_the_process(settings, contest, entrant):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on the discard port
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    with upload_slot(entrant) as held:
        assert held.refusal is None
        assert entrant.pk in throttle._here.users
        busy = post("preview", entrant, contest, real_log())
    assert busy.status_code == 429
    assert entrant.pk not in throttle._here.users
    assert post("preview", entrant, contest, real_log()).status_code == 200


# -- the production server -----------------------------------------------------------------


def send(url: str, key: str, path: str, log: bytes) -> tuple[int, str]:
    fields = {
        "contest": "bombs",
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in DECLARED.items()},
    }
    parts = [(name, value, None, None) for name, value in fields.items()]
    body, content_type = multipart([*parts, ("log", log, "run.log.gz", "application/gzip")])
    request = urllib.request.Request(  # noqa: S310 - the test's own loopback server
        f"{url}{path}", data=body, method="POST",
        headers={"Authorization": f"Token {key}", "Content-Type": content_type},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def worker_peaks(server) -> list[int]:
    """Each gunicorn worker's peak resident memory (VmHWM), in bytes."""
    peaks = []
    for pid in server._workers():
        status = Path(f"/proc/{pid}/status").read_text()
        kib = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
        peaks.append(int(kib) * 1024)
    return peaks


@pytest.mark.django_db(transaction=True)
def test_gunicorn_answers_a_comment_bomb_413_and_its_workers_stay_small(live_site):
    # The upload: a real log's header, then 50,000,000 `#` lines (100 MB), gzipped
    # (450 KB at level 1). Fresh workers: their peak memory is this test's alone.
    live_site.fresh_workers()
    ContestFactory(slug="bombs", target_rows=5_000_000)
    key = Token.objects.create(user=UserFactory()).key
    log = bomb_bytes("comment", "gzip", 50_000_000)
    for path in ("/api/submissions/", "/api/submissions/preview/"):
        status, body = send(live_site.url, key, path, log)
        assert status == 413, body[:500]
        assert json.loads(body)["log"][0].startswith(
            "line 3,000,001: the log has more than 3,000,000 lines"
        )
    assert max(worker_peaks(live_site)) < PEAK_RSS_LIMIT + (100 << 20)
    assert "WORKER TIMEOUT" not in live_site.log
    assert Submission.objects.count() == 0
