"""Faults with real processes: the private stack's Redis killed and PostgreSQL stopped while
pages are viewed, logs uploaded and reruns queued (testing/faults.py). Each ends in a
state a user sees within its bound, nothing lost and nothing stored twice."""

import http.client
import os
import signal
import threading
import time

import pytest

from testing.entries import DECLARED
from testing.faults import RESEND_SECONDS, fault_stack, multipart, wait_until
from testing.logs import python_log

__all__ = ["fault_stack"]

pytestmark = pytest.mark.worker

FIELDS = {
    **{key: str(value).lower() if isinstance(value, bool) else str(value)
       for key, value in DECLARED.items()},
    "contest": "faults",
}  # fmt: skip
PAGES = ["/", "/contests/faults/", "/api/contests/", "/api/contests/faults/leaderboard/"]


def a_log(rows: int) -> bytes:
    return python_log(rows)


def upload(stack, log: bytes):
    body, content_type = multipart(FIELDS, log)
    return stack.request(
        "POST", "/api/submissions/", token=stack.accounts["entrant"], body=body,
        content_type=content_type,
    )  # fmt: skip


def slow_upload(stack, log: bytes, between) -> tuple:
    """Send half the body, call `between()`, send the rest: the fault happens while the
    server is reading the upload. Returns the answer."""
    import http.client

    body, content_type = multipart(FIELDS, log)
    host, port = stack.web.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    connection.putrequest("POST", "/api/submissions/")
    connection.putheader("Authorization", f"Token {stack.accounts['entrant']}")
    connection.putheader("Content-Type", content_type)
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders()
    half = len(body) // 2
    connection.send(body[:half])
    time.sleep(1)  # the worker has authenticated and waits for the body
    between()
    connection.send(body[half:])
    response = connection.getresponse()
    answer = (response.status, dict(response.getheaders()), response.read())
    connection.close()
    return answer


# -- Redis --------------------------------------------------------------------------------------


def test_redis_killed_pages_and_uploads_go_on_without_the_cache(fault_stack):
    stack = fault_stack
    before = stack.entries()
    stack.redis.kill()
    try:
        for path in PAGES:
            started = time.monotonic()
            answer = stack.request("GET", path)
            assert answer.status == 200, (path, answer.text[:300])
            assert time.monotonic() - started < 5, path
        answer = upload(stack, a_log(2_000_000))
        assert answer.status == 201, answer.text[:500]
        assert "/entries/" in answer.json()["url"]
        board = stack.request("GET", "/contests/faults/")
        assert f"#{answer.json()['id']}" in board.text or "Ada Entrant" in board.text
    finally:
        stack.redis.start()
    assert stack.entries() == before + 1
    assert "Cache unavailable" in stack.web.log
    assert stack.request("GET", "/contests/faults/").status == 200


def views_during(stack, fault, paths=("/", "/contests/faults/")) -> list[int]:
    """Statuses of page views made while `fault()` runs."""
    statuses: list[int] = []
    stop = threading.Event()

    def view():
        while not stop.is_set():
            for path in paths:
                statuses.append(stack.request("GET", path, timeout=10).status)

    viewer = threading.Thread(target=view)
    viewer.start()
    try:
        time.sleep(0.5)
        fault()
        time.sleep(1)
    finally:
        stop.set()
        viewer.join()
    return statuses


def test_page_views_while_redis_is_killed_and_restarted_all_answer(fault_stack):
    stack = fault_stack

    def restart():
        stack.redis.kill()
        time.sleep(1)
        stack.redis.start()

    statuses = views_during(stack, restart)
    assert len(statuses) > 4
    assert set(statuses) == {200}, statuses


def test_redis_killed_during_an_upload_stores_it_once(fault_stack):
    stack = fault_stack
    before = stack.entries()
    try:
        status, _, body = slow_upload(stack, a_log(3_000_000), stack.redis.kill)
    finally:
        stack.redis.start()
    assert status == 201, body[:500]
    assert stack.entries() == before + 1


def start_rerun(stack, entry_id: int):
    return stack.request(
        "POST", f"/api/submissions/{entry_id}/reruns/", token=stack.accounts["organizer"],
        body=b'{"target": "sqlite", "rows": 20000, "comparison": true}', content_type="application/json",
    )  # fmt: skip


def rerun_detail(stack, run_id: int) -> dict:
    answer = stack.request("GET", f"/api/reruns/{run_id}/", token=stack.accounts["organizer"])
    assert answer.status == 200, answer.text[:500]
    return answer.json()


def rerun_status(stack, run_id: int) -> str:
    return rerun_detail(stack, run_id)["status"]


def an_entry(stack, rows: int) -> int:
    answer = upload(stack, a_log(rows))
    assert answer.status == 201, answer.text[:500]
    return answer.json()["id"]


def test_a_rerun_started_while_redis_is_down_runs_once_it_is_back(fault_stack):
    stack = fault_stack
    entry = an_entry(stack, 4_000_000)
    stack.redis.kill()
    try:
        started = time.monotonic()
        answer = start_rerun(stack, entry)
        assert answer.status == 202, answer.text[:500]
        assert time.monotonic() - started < 5  # the failed send is not waited on for long
        run = answer.json()["id"]
        assert rerun_status(stack, run) == "queued"
    finally:
        stack.redis.start()
    assert "stays queued: the broker is unreachable" in stack.web.log
    back = time.monotonic()
    stack.worker()
    stack.beat()
    try:
        bound = RESEND_SECONDS + 1 + 60  # resend + sweep period + the rerun itself
        wait_until(
            lambda: rerun_status(stack, run) == "succeeded", bound, "the rerun did not succeed"
        )
        assert time.monotonic() - back < bound
        assert stack.postgres.query(
            "SELECT count(*) FROM runner_verificationrun WHERE submission_id = %s", entry
        ) == [(1,)]
    finally:
        stack.stop_daemons()


def test_a_queued_rerun_lost_with_a_redis_restart_is_sent_again_by_the_sweep(fault_stack):
    stack = fault_stack
    entry = an_entry(stack, 6_000_000)
    answer = start_rerun(stack, entry)
    assert answer.status == 202
    run = answer.json()["id"]
    # No worker has taken it yet; Redis restarts and forgets it (no persistence).
    stack.redis.kill()
    stack.redis.start()
    stack.worker()
    stack.beat()
    try:
        wait_until(
            lambda: rerun_status(stack, run) == "succeeded",
            RESEND_SECONDS + 1 + 60,
            "the lost rerun was not sent again and run",
        )
        worker_log = "".join(daemon.log for daemon in stack.daemons)
        assert "Sent 1 queued reruns to the broker again" in worker_log
        rows = stack.postgres.query(
            "SELECT status, started_at IS NOT NULL FROM runner_verificationrun WHERE id = %s", run
        )
        assert rows == [("succeeded", True)]
    finally:
        stack.stop_daemons()


def test_workers_reconnect_after_a_redis_restart_and_run_the_next_rerun(fault_stack):
    stack = fault_stack
    entry = an_entry(stack, 10_000_000)
    stack.worker()
    stack.beat()
    try:
        stack.redis.kill()
        time.sleep(2)
        stack.redis.start()
        answer = start_rerun(stack, entry)
        assert answer.status == 202, answer.text[:500]
        run = answer.json()["id"]
        wait_until(
            lambda: rerun_status(stack, run) == "succeeded",
            RESEND_SECONDS + 1 + 60,
            "the rerun did not run after the restart",
        )
    finally:
        stack.stop_daemons()


# -- PostgreSQL ----------------------------------------------------------------------------------


def test_postgres_stopped_pages_and_the_api_answer_503_and_recover(fault_stack):
    stack = fault_stack
    for _ in range(8):  # every worker holding a connection, which the stop leaves dead
        served = stack.request("GET", "/api/contests/faults/leaderboard/")
        assert served.status == 200
    stack.postgres.stop()
    try:
        page = stack.request("GET", "/contests/faults/")
        assert page.status == 503
        assert "Unavailable for a moment" in page.text
        assert int(page.headers["Retry-After"]) > 0
        home = stack.request("GET", "/")
        assert home.status == 503
        api = stack.request("GET", "/api/contests/")
        assert api.status == 503
        assert "database is unavailable" in api.json()["detail"]
        assert int(api.headers["Retry-After"]) > 0
        # A worker that keeps the board's version (board/versions.py) and has not yet seen its
        # listening connection close answers from memory the board as it was: no commit can
        # have moved it on. Else the version is read on the driver's own cursor: a clear 503.
        for _ in range(8):
            board = stack.request("GET", "/api/contests/faults/leaderboard/")
            if board.status == 200:
                assert board.text == served.text
            else:
                assert board.status == 503
                assert "database is unavailable" in board.json()["detail"]
        refused = upload(stack, a_log(7_000_000))
        assert refused.status == 503
        assert "Nothing was stored" in refused.json()["detail"]
    finally:
        stack.postgres.start()
    # Recovers by itself: the next request opens a new connection.
    wait_until(lambda: stack.request("GET", "/").status == 200, 10, "the site did not recover")
    assert stack.request("GET", "/contests/faults/").status == 200
    # Every worker, whichever the requests reach: none answers from a connection left dead.
    boards = [stack.request("GET", "/api/contests/faults/leaderboard/").status for _ in range(8)]
    assert boards == [200] * 8
    assert "Internal Server Error" not in stack.web.log


def test_postgres_stopped_during_an_upload_stores_nothing_and_a_retry_stores_it_once(
    fault_stack,
):
    stack = fault_stack
    before, files = stack.entries(), len(stack.stored_logs())
    log = a_log(8_000_000)
    try:
        status, headers, body = slow_upload(stack, log, stack.postgres.stop)
    finally:
        stack.postgres.start()
    assert status == 503, body[:500]
    assert int(headers["Retry-After"]) > 0
    assert stack.entries() == before
    assert len(stack.stored_logs()) == files
    retry = wait_until(
        lambda: (answer := upload(stack, log)).status == 201 and answer, 15, "no retry stored"
    )
    assert stack.entries() == before + 1
    again = upload(stack, log)
    assert again.status == 400
    assert f"entry #{retry.json()['id']}" in again.text


def test_page_views_during_a_postgres_restart_are_200_or_503_never_500(fault_stack):
    stack = fault_stack

    def restart():
        stack.postgres.stop()
        time.sleep(1)
        stack.postgres.start()

    statuses = views_during(stack, restart)
    assert set(statuses) <= {200, 503}, statuses
    assert 503 in statuses
    assert statuses[-1] == 200


def test_a_logged_in_page_with_postgres_stopped_is_a_503(fault_stack):
    stack = fault_stack
    stack.postgres.stop()
    try:
        host, port = stack.web.url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/entries/mine/", headers={"Cookie": "sessionid=" + "a1" * 16})
        response = connection.getresponse()
        body = response.read().decode()
        connection.close()
    finally:
        stack.postgres.start()
    assert response.status == 503
    assert "Unavailable for a moment" in body


# -- the worker ----------------------------------------------------------------------------------


def test_a_worker_killed_mid_rerun_is_resumed_by_the_next_within_the_bound(fault_stack):
    stack = fault_stack
    entry = an_entry(stack, 9_000_000)
    first = stack.worker()
    try:
        answer = stack.request(
            "POST", f"/api/submissions/{entry}/reruns/", token=stack.accounts["organizer"],
            body=b'{"target": "sqlite", "rows": 9000000, "comparison": true}', content_type="application/json",
        )  # fmt: skip
        assert answer.status == 202, answer.text[:500]
        run = answer.json()["id"]
        # Killed once it has reported progress: a run with a table to continue is resumed.
        wait_until(lambda: rerun_detail(stack, run)["rows_done"] > 0, 60, "no progress")
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait()
        killed = time.monotonic()
        # The next worker sweeps at start, and its beat every second: past the heartbeat
        # timeout (2 s here) the run is queued again and this worker continues it.
        stack.celery(
            "worker", "--concurrency=1", "--loglevel=INFO", "--without-gossip",
            "--without-mingle", "-Q", "celery,rerun.sqlite", "-n", "faults-second@%h",
            "--beat", "-s", str(stack.folder / "beat-second"), name="worker",
        )  # fmt: skip
        wait_until(
            lambda: (
                rerun_detail(stack, run)["resumes"] == 1
                and rerun_detail(stack, run)["status"] in ("running", "succeeded")
            ),
            60,
            "the run was not resumed",
        )
        assert time.monotonic() - killed < 60
        count = "SELECT count(*) FROM runner_verificationrun WHERE submission_id = %s"
        assert stack.postgres.query(count, entry) == [(1,)]
        stack.request(
            "POST", f"/api/reruns/{run}/cancel/", token=stack.accounts["organizer"], body=b"{}",
            content_type="application/json",
        )  # fmt: skip
    finally:
        stack.stop_daemons()
