"""A witness client's batch answered before Django (live/wsgi_appends.py, written in one
statement by live/plain_append.py) stores what the locked append stores and answers what
Django answers, headers included; whatever it does not take is Django's, refusals worded as
before; a revoked token is refused from the next batch on."""

import io
import json
from contextlib import contextmanager

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.utils import timezone

from iibench_site.wsgi import application, django_application
from submissions.live import plain_append, services
from submissions.live.models import LiveBatch, LiveRun, LiveSample, WitnessToken
from submissions.live.wsgi_appends import AppendsBeforeDjango
from testing.logs import c_mariadb_head_and_reports

# The path before Django takes requests on PostgreSQL only (on SQLite Django answers them all).
pytestmark = [pytest.mark.django_db, pytest.mark.postgresql]

MACHINE = {"cores": 8, "memory_bytes": 16 * 2**30}


@contextmanager
def in_the_test_transaction():
    """Requests handled by the WSGI applications inside the test's transaction: its connection
    is not closed at a request's start and end (as Django's test client does)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def wsgi_post(app, path: str, body: dict, key: str, **environ) -> tuple[int, dict, bytes]:
    """POST through a WSGI application as gunicorn calls it, with a witness client's headers:
    (status, headers, body)."""
    data = json.dumps(body).encode()
    request = {
        "REQUEST_METHOD": "POST", "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
        "SERVER_NAME": "testserver", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver", "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)),
        "HTTP_ACCEPT": "application/json", "HTTP_AUTHORIZATION": f"Bearer {key}",
        "wsgi.input": io.BytesIO(data), "wsgi.errors": io.StringIO(), "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http", "wsgi.multithread": False, "wsgi.multiprocess": True,
        "wsgi.run_once": False, **environ,
    }  # fmt: skip
    started = {}

    def start_response(status, headers, exc_info=None):
        started.update(status=int(status.split()[0]), headers=dict(headers))

    with in_the_test_transaction():
        result = app(request, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()
    return started["status"], started["headers"], content


def open_run(key: str, declared: dict, run_key: str) -> int:
    status, _, body = wsgi_post(
        application,
        "/api/live/",
        {**declared, "run_key": f"run-{run_key}", "machine": MACHINE},
        key,
    )
    assert status == 201, body
    return json.loads(body)["id"]


def batches(count: int) -> list[list[str]]:
    """A MariaDB run's header in batches of 100 lines, then its reports 5 at a time."""
    head, reports = c_mariadb_head_and_reports(count)
    header = head.splitlines()
    return [header[at : at + 100] for at in range(0, len(header), 100)] + [
        reports[at : at + 5] for at in range(0, len(reports), 5)
    ]


@pytest.fixture
def plain_appends(monkeypatch) -> list:
    """What each call of plain_append answered (None: not written in one statement)."""
    answered = []
    original = plain_append.plain_append

    def recorded(*args, **kwargs):
        answered.append(original(*args, **kwargs))
        return answered[-1]

    monkeypatch.setattr(plain_append, "plain_append", recorded)
    return answered


def stored(run_id: int) -> tuple:
    run = LiveRun.objects.values(
        "next_seq", "line_count", "byte_count", "head", "context", "last_report",
        "last_report_line", "rows", "elapsed_seconds", "current_rate", "cumulative_rate",
    ).get(pk=run_id)  # fmt: skip
    samples = list(
        LiveSample.objects.filter(run_id=run_id)
        .order_by("line")
        .values_list("line", "rows", "seconds", "interval_rate", "cumulative_rate", "cost")
    )
    kept = list(
        LiveBatch.objects.filter(run_id=run_id)
        .order_by("seq")
        .values_list("seq", "first_line", "line_count", "text", "digest", "machine")
    )
    return run, samples, kept


def test_a_run_streamed_before_django_is_stored_as_the_locked_append_stores_it(
    contest, entrant, declared, settings, plain_appends
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    token, key = services.witness_token_create(user=entrant, contest=contest)
    streamed = open_run(key, declared, "streamed")
    locked = open_run(key, declared, "locked")
    sent = batches(150)

    for seq, lines in enumerate(sent):
        machine = {"cpu_user_s": seq * 1.5, "read_bytes": seq * 4096}
        body = {"seq": seq, "lines": lines, "machine": machine}
        status, _, answer = wsgi_post(application, f"/api/live/{streamed}/batches/", body, key)
        assert status == 200, answer
        assert json.loads(answer)["next_seq"] == seq + 1
        services.live_run_append(run_id=locked, token=token, seq=seq, lines=lines, machine=machine)

    run, samples, kept = stored(streamed)
    assert (run, samples, kept) == stored(locked)
    assert len(samples) == 151 and run["rows"] == 15_100_000
    # After the head (its first report and 60 lines more), every batch went in one statement.
    in_one_statement = [appended is not None for appended in plain_appends]
    assert len(in_one_statement) == len(sent) and in_one_statement[-17:] == [True] * 17


def test_an_answer_before_django_is_django_s_answer_headers_included(
    contest, entrant, declared, settings
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    token, key = services.witness_token_create(user=entrant, contest=contest)
    runs = [open_run(key, declared, "first-run"), open_run(key, declared, "second-run")]
    sent = batches(100)
    for run_id in runs:
        for seq, lines in enumerate(sent[:-1]):
            services.live_run_append(run_id=run_id, token=token, seq=seq, lines=lines, machine={})
    last = len(sent) - 1

    def both(body: dict, run_ids=runs, **environ) -> list[tuple[int, dict, bytes]]:
        """The answers before Django and Django's, each handler made anew (Django's middleware
        reads its settings when it is made)."""
        django = WSGIHandler()
        return [
            wsgi_post(app, f"/api/live/{run_id}/batches/", body, key, **environ)
            for app, run_id in zip((AppendsBeforeDjango(django), django), run_ids, strict=True)
        ]

    new = both({"seq": last, "lines": sent[last]})
    replayed = both({"seq": last, "lines": sent[last]}, run_ids=[runs[0]] * 2)
    gap = both({"seq": last + 5, "lines": sent[0]})
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    secure = both(
        {"seq": last, "lines": sent[last]}, run_ids=[runs[0]] * 2, HTTP_X_FORWARDED_PROTO="https"
    )
    settings.LIVE_BATCHES_PER_MINUTE = 1
    over = both({"seq": last + 1, "lines": []})

    (status, headers, body), (django_status, django_headers, django_body) = new
    assert status == django_status == 200
    assert headers.keys() == django_headers.keys()
    assert {k: v for k, v in headers.items() if k != "Content-Length"} == {
        k: v for k, v in django_headers.items() if k != "Content-Length"
    }
    assert headers["Content-Length"] == str(len(body))
    assert json.loads(body).keys() == json.loads(django_body).keys()
    assert json.loads(body)["next_seq"] == json.loads(django_body)["next_seq"] == last + 1
    for ours, django in (replayed, gap, secure):
        assert ours == django
    assert replayed[0][0] == 200 and json.loads(replayed[0][2])["replayed"] is True
    assert gap[0][0] == 409 and json.loads(gap[0][2])["expected_seq"] == last + 1
    assert "max-age=3600" in secure[0][1]["Strict-Transport-Security"]
    assert over[0][0] == over[1][0] == 429 and over[0][2] == over[1][2]
    assert over[0][1].keys() == over[1][1].keys()


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        ("revoked", "This witness token was revoked or has expired: make a new one."),
        ("expired", "This witness token was revoked or has expired: make a new one."),
        ("user deactivated", "Unknown witness token."),
    ],
)
def test_a_token_revoked_is_refused_from_the_next_batch(
    contest, entrant, declared, settings, change, refusal
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    token, key = services.witness_token_create(user=entrant, contest=contest)
    run_id = open_run(key, declared, "revoked")
    path = f"/api/live/{run_id}/batches/"
    sent = batches(100)
    for seq, lines in enumerate(sent[:-1]):  # the token kept by the process, the head complete
        assert wsgi_post(application, path, {"seq": seq, "lines": lines}, key)[0] == 200

    if change == "revoked":
        services.witness_token_revoke(token=token)
    elif change == "expired":
        WitnessToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())
    else:
        entrant.is_active = False
        entrant.save()
    status, _, body = wsgi_post(application, path, {"seq": len(sent) - 1, "lines": sent[-1]}, key)

    assert status == 401
    assert json.loads(body) == {"detail": refusal}
    assert LiveBatch.objects.filter(run_id=run_id).count() == len(sent) - 1


@pytest.mark.parametrize(
    ("environ", "body", "status"),
    [
        ({"HTTP_HOST": "elsewhere.example"}, {"seq": 0, "lines": []}, 400),
        ({"CONTENT_TYPE": "text/plain"}, {"seq": 0, "lines": []}, 415),
        ({}, {"seq": 0, "lines": ["a\x00b"]}, 400),
        ({"HTTP_AUTHORIZATION": "Bearer iiw_not-a-token"}, {"seq": 0, "lines": []}, 401),
    ],
)
def test_a_request_it_does_not_take_is_answered_by_django_as_before(
    contest, entrant, declared, environ, body, status
):
    _, key = services.witness_token_create(user=entrant, contest=contest)
    run_id = open_run(key, declared, "refused")
    path = f"/api/live/{run_id}/batches/"

    ours = wsgi_post(application, path, body, key, **environ)

    assert ours[0] == status
    assert ours == wsgi_post(django_application, path, body, key, **environ)
    assert not LiveBatch.objects.filter(run_id=run_id).exists()


def test_a_plain_append_behind_another_writes_nothing_and_the_locked_append_answers(
    contest, entrant, declared, settings
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    token, key = services.witness_token_create(user=entrant, contest=contest)
    run_id = open_run(key, declared, "raced-run")
    sent = batches(100)
    for seq, lines in enumerate(sent[:-2]):
        services.live_run_append(run_id=run_id, token=token, seq=seq, lines=lines, machine={})
    seq = len(sent) - 2
    with services.prepared_cursor() as cursor:
        read = plain_append.read_token(
            cursor, key_hash=services.token_hash(key), now=timezone.now()
        )
        # Another worker appends the batch first.
        services.live_run_append(run_id=run_id, token=token, seq=seq, lines=sent[seq], machine={})
        late = plain_append.plain_append(
            cursor, run_id=run_id, token=read, seq=seq, lines=sent[seq], machine={},
            unterminated=False, now=timezone.now(),
        )  # fmt: skip
    again = wsgi_post(
        application, f"/api/live/{run_id}/batches/", {"seq": seq, "lines": sent[seq]}, key
    )
    with services.prepared_cursor() as cursor:  # the next batch goes in as one statement
        following = plain_append.plain_append(
            cursor, run_id=run_id, token=read, seq=seq + 1, lines=sent[seq + 1], machine={},
            unterminated=False, now=timezone.now(),
        )  # fmt: skip

    assert late is None
    assert again[0] == 200 and json.loads(again[2])["replayed"] is True
    assert following is not None and following.next_seq == seq + 2
    assert LiveBatch.objects.filter(run_id=run_id).count() == seq + 2
    reports_sent = 1 + 5 * (seq + 2 - len(batches(0)))  # the head's and 5 a batch after it
    assert LiveSample.objects.filter(run_id=run_id).count() == reports_sent


def test_a_batch_behind_the_last_report_is_stored_as_the_locked_append_stores_it(
    contest, entrant, declared, settings, plain_appends
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    token, key = services.witness_token_create(user=entrant, contest=contest)
    streamed = open_run(key, declared, "streamed")
    locked = open_run(key, declared, "locked")
    sent = batches(100)
    behind = [sent[-2][-1], *sent[-1]]  # the last report streamed, again, then the next ones

    for seq, lines in enumerate([*sent[:-1], behind]):
        body = {"seq": seq, "lines": lines}
        assert wsgi_post(application, f"/api/live/{streamed}/batches/", body, key)[0] == 200
        services.live_run_append(run_id=locked, token=token, seq=seq, lines=lines, machine={})

    assert plain_appends[-2] is not None and plain_appends[-1] is None
    assert stored(streamed) == stored(locked)
