"""The witness client's retries are bounded (issue 40): it resent a batch the registry answered
with a 500 forever. Against a real HTTP server on loopback that answers every batch with a 500:
the client tries SERVER_ERROR_RETRIES times with backoff, then stops streaming and says why.
A registry away (no answer, 503) is waited for, up to --give-up-after."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[1] / "iibench_witness.py"
sys.path.insert(0, str(CLIENT.parent))
import iibench_witness as witness  # noqa: E402


class FailingRegistry(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the status in `status`, counting them."""

    status = 500
    posts: list = []

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        FailingRegistry.posts.append(json.loads(self.rfile.read(length)))
        body = json.dumps({"detail": "Server error"}).encode()
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def failing_registry(monkeypatch):
    monkeypatch.setattr(witness, "BACKOFF_FIRST_SECONDS", 0.01)
    FailingRegistry.posts = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FailingRegistry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def stream_to(url: str, tmp_path, give_up_after: float = 3600.0) -> witness.Stream:
    registry = witness.Registry(url, "iiw_test", timeout=5)
    outbox = witness.Outbox(str(tmp_path))
    stream = witness.Stream(registry, {"id": 7}, outbox, None, 5.0, give_up_after)
    stream.line("rows\tseconds")
    stream.tick()
    return stream


def test_a_batch_answered_with_500_is_tried_a_bounded_number_of_times(
    failing_registry, tmp_path, capsys
):
    stream = stream_to(failing_registry, tmp_path)
    assert stream.send_all() is False
    assert len(FailingRegistry.posts) == witness.SERVER_ERROR_RETRIES
    assert {post["seq"] for post in FailingRegistry.posts} == {0}
    said = capsys.readouterr().err
    assert "gave up: the registry answered HTTP 500 to batch 0 5 times in a row" in said
    assert "streaming stopped; the benchmark goes on and its local copy is kept" in said
    assert isinstance(stream.failed, witness.GaveUp)


def test_a_registry_that_stays_away_is_given_up_after_the_bound(failing_registry, tmp_path, capsys):
    FailingRegistry.status = 503
    try:
        stream = stream_to(failing_registry, tmp_path, give_up_after=1.5)
        assert stream.send_all() is False
    finally:
        FailingRegistry.status = 500
    # Away, not failing this request: more tries than a server error gets, within the bound.
    assert len(FailingRegistry.posts) > witness.SERVER_ERROR_RETRIES
    assert "gave up: the registry could not take batch 0 for 0 minutes" in capsys.readouterr().err


def test_the_backoff_doubles_and_counts_only_server_errors_in_a_row():
    now = [0.0]
    backoff = witness.Backoff(give_up_after=100, server_error_retries=3, clock=lambda: now[0])
    stopped = threading.Event()
    stopped.set()  # no real waiting
    server_error = witness.Unreachable("HTTP 500", status=500)
    away = witness.Unreachable("connection refused")
    backoff.wait(stopped, server_error, "batch 1")
    backoff.wait(stopped, away, "batch 1")  # a network loss between: the count starts again
    backoff.wait(stopped, server_error, "batch 1")
    backoff.wait(stopped, server_error, "batch 1")
    with pytest.raises(witness.GaveUp, match="HTTP 500 to batch 1 3 times in a row"):
        backoff.wait(stopped, server_error, "batch 1")
    backoff.reset()
    now[0] = 50.0
    backoff.wait(stopped, away, "the seal")
    now[0] = 151.0
    with pytest.raises(witness.GaveUp, match="could not take the seal for 2 minutes"):
        backoff.wait(stopped, away, "the seal")
