"""The witness client against the real site (gunicorn with the production settings,
PostgreSQL, Redis) wrapping real runs: the C benchmark on SQLite and a replayed Python-iiBench
log. The sealed entry equals an upload of the same log; a registry restarted mid-run and a
network cut lose nothing; a fast-forwarded log fails "the clock agrees"."""

from __future__ import annotations

import sys
import time
import urllib.parse

import pytest
from rest_framework.authtoken.models import Token

from submissions.live.models import LiveBatch, LiveSample
from submissions.models import Submission
from testing.logs import python_log
from testing.server import production_environment, start_gunicorn
from testing.witness_rig import (
    CuttableProxy,
    c_benchmark,
    run_client,
    start_client,
    streaming_contest,
    the_run,
    this_machine,
    witness_token,
)

pytestmark = pytest.mark.django_db(transaction=True)


def upload_twin(live_site, user, contest, declared, log: bytes) -> dict:
    """The same log uploaded to a twin contest, through the same production server's API."""
    import json
    import urllib.request
    import uuid

    twin = streaming_contest(
        target_rows=contest.target_rows, report_every_rows=contest.report_every_rows
    )
    token, _ = Token.objects.get_or_create(user=user)
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in {"contest": twin.slug, **declared}.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="log"; filename="run.log"\r\n'
        f"Content-Type: text/plain\r\n\r\n".encode()
        + log
        + b"\r\n"
    )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(  # noqa: S310 - the test's own loopback server
        live_site.url + "/api/submissions/",
        data=body,
        headers={
            "Authorization": f"Token {token.key}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310  # nosec B310
        return json.loads(response.read())


def figures(entry: Submission) -> tuple:
    return (entry.rows, entry.elapsed_seconds, entry.average_rate, entry.terminal_rate,
            entry.seconds_to_target, entry.log_format)  # fmt: skip


def test_a_c_benchmark_run_streams_and_seals_streamed_equal_to_an_upload(
    live_site, tmp_path, declared
):
    contest = streaming_contest(target_rows=100_000)
    user, key = witness_token(contest)
    setup = this_machine(declared)

    done = run_client(
        registry=live_site.url, key=key, contest=contest, declared=setup, tmp_path=tmp_path,
        command=c_benchmark(tmp_path, rows=100_000),
        options=("--db", f"sqlite:///{tmp_path / 'bench.db'}"),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr.decode()
    assert b"# summary" in done.stdout  # the command's output still reaches the terminal
    assert b"sealed: streamed" in done.stderr
    run = the_run(contest)
    local = (tmp_path / "local.log").read_bytes()
    assert run.submission.log.read() == local
    failed = [v["message"] for v in run.submission.verdicts if v["status"] == "fail"]
    assert run.witnessed and failed == []
    twin = upload_twin(live_site, user, contest, setup, local)
    assert twin["summary"] == {
        **twin["summary"],
        "rows": 100_000,
        "elapsed_seconds": run.submission.elapsed_seconds,
        "average_rate": run.submission.average_rate,
        "terminal_rate": run.submission.terminal_rate,
    }
    assert twin["trust"] == "self-reported"
    assert run.machine["datadir"]["kind"] == setup["drive_kind"]
    assert run.machine["db"]["scheme"] == "sqlite"
    assert LiveBatch.objects.filter(run=run).exclude(machine={}).exists()
    interval = LiveBatch.objects.filter(run=run).exclude(machine={}).first().machine
    assert set(interval["cpu"]) >= {"user", "system", "iowait"}


REPLAY = """
import sys, time
start = time.monotonic()
for line in open(sys.argv[1]):
    fields = line.split()
    if fields and fields[0].isdigit():
        time.sleep(max(0.0, start + float(fields[2]) - time.monotonic()))
    print(line, end="", flush=True)
"""


def test_a_python_iibench_log_replayed_at_its_own_pace_is_streamed_and_equals_its_upload(
    live_site, tmp_path, declared
):
    contest = streaming_contest(report_every_rows=1_000_000, target_rows=5_000_000)
    user, key = witness_token(contest)
    setup = this_machine(declared)
    log = python_log(rows=5_000_000, rates=[1_000_000, 900_000, 800_000, 700_000, 600_000])
    (tmp_path / "python.log").write_bytes(log)
    (tmp_path / "replay.py").write_text(REPLAY)

    done = run_client(
        registry=live_site.url, key=key, contest=contest, declared=setup, tmp_path=tmp_path,
        command=[sys.executable, str(tmp_path / "replay.py"), str(tmp_path / "python.log")],
    )  # fmt: skip

    assert done.returncode == 0, done.stderr.decode()
    run = the_run(contest)
    assert run.submission.log.read() == log
    assert run.witnessed
    twin = upload_twin(live_site, user, contest, setup, log)
    assert twin["summary"]["rows"] == run.submission.rows == 5_000_000
    assert twin["summary"]["terminal_rate"] == run.submission.terminal_rate
    assert twin["summary"]["average_rate"] == run.submission.average_rate
    seal = ("clock_agrees", "machine_declared", "server_version_witnessed", "exit_status")
    usual = [v for v in run.submission.verdicts if v["rule"] not in seal]
    assert [(v["rule"], v["status"]) for v in usual] == [
        (v["rule"], v["status"]) for v in twin["verdicts"]
    ]


def test_a_fast_forwarded_log_fails_the_clock(live_site, tmp_path, declared):
    contest = streaming_contest(target_rows=1_000_000_000, report_every_rows=1_000_000)
    _, key = witness_token(contest)
    # A 1B-row log whose lines say 19 days passed, printed in a moment.
    log = python_log(rows=1_000_000_000, rates=[600.0 * (1 + 1 / (1 + i)) for i in range(1000)])
    (tmp_path / "fake.log").write_bytes(log)

    done = run_client(
        registry=live_site.url, key=key, contest=contest, declared=this_machine(declared),
        tmp_path=tmp_path, command=["cat", str(tmp_path / "fake.log")],
    )  # fmt: skip

    assert done.returncode == 0, done.stderr.decode()
    run = the_run(contest)
    clock = next(v for v in run.seal_verdicts if v["rule"] == "clock_agrees")
    assert clock["status"] == "fail"
    assert "the registry received the line" in clock["message"]
    assert not run.witnessed
    assert run.submission.rows == 1_000_000_000
    assert not run.submission.eligible
    assert b"sealed: self-reported" in done.stderr


def _lines_of(run) -> int:
    return sum(LiveBatch.objects.filter(run=run).values_list("line_count", flat=True))


def _wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.3)


def test_a_network_cut_and_a_registry_restart_mid_run_lose_nothing(live_site, tmp_path, declared):
    contest = streaming_contest(target_rows=200_000)
    _, key = witness_token(contest)
    # A registry of its own, so this test can stop it and start another.
    environment = production_environment(
        database_url=_database_url(),
        static_root=live_site.media_root.parent / "static",
        media_root=live_site.media_root,
        redis_url=_redis_url(),
    )
    registry = start_gunicorn(environment, tmp_path / "gunicorn-a.log", live_site.media_root, 1)
    restarted = None
    proxy = CuttableProxy(_address(registry.url))
    client = start_client(
        registry=proxy.url, key=key, contest=contest, declared=this_machine(declared),
        tmp_path=tmp_path, command=c_benchmark(tmp_path, rows=200_000, rate=8_000),
    )  # fmt: skip
    try:
        _wait_for(lambda: LiveSample.objects.filter(run__contest=contest).count() >= 3)
        proxy.cut()  # the network goes away for a while
        time.sleep(4)
        proxy.mend()
        _wait_for(lambda: LiveSample.objects.filter(run__contest=contest).count() >= 10)
        registry.stop()  # and then the registry restarts
        time.sleep(3)
        restarted = start_gunicorn(
            environment, tmp_path / "gunicorn-b.log", live_site.media_root, 1
        )
        proxy.mend(_address(restarted.url))
        _out, err = client.communicate(timeout=180)
    finally:
        if client.poll() is None:
            client.kill()
        proxy.close()
        registry.stop()
        if restarted is not None:
            restarted.stop()
    assert client.returncode == 0, err.decode()
    assert b"registry unreachable" in err
    assert proxy.refused > 0
    run = the_run(contest)
    local = (tmp_path / "local.log").read_bytes()
    assert run.submission.log.read() == local  # nothing lost, nothing doubled
    assert _lines_of(run) == local.count(b"\n")
    assert run.submission.rows == 200_000
    assert run.witnessed, run.seal_verdicts


def _address(url: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port


def _database_url() -> str:
    from testing.worker import test_database_url

    return test_database_url()


def _redis_url() -> str:
    from testing.worker import REDIS_TEST_URL

    return REDIS_TEST_URL


def test_ctrl_c_stops_the_command_and_the_stream_together_and_says_so(
    live_site, tmp_path, declared
):
    import os
    import signal

    contest = streaming_contest(target_rows=1_000_000)
    _, key = witness_token(contest)
    client = start_client(
        registry=live_site.url, key=key, contest=contest, declared=this_machine(declared),
        tmp_path=tmp_path, command=c_benchmark(tmp_path, rows=1_000_000, rate=5_000),
    )  # fmt: skip
    try:
        _wait_for(lambda: LiveSample.objects.filter(run__contest=contest).count() >= 2)
        os.kill(client.pid, signal.SIGINT)  # what Ctrl-C sends to the foreground program
        _out, err = client.communicate(timeout=60)
    finally:
        if client.poll() is None:
            client.kill()
    assert b"interrupted: stopping the benchmark and sealing the stream" in err
    assert b"the benchmark and the stream were stopped together" in err
    run = the_run(contest)
    assert run.sealed_at is not None
    assert run.exit_status != 0
    assert client.returncode == run.exit_status
    exit_verdict = next(v for v in run.seal_verdicts if v["rule"] == "exit_status")
    assert exit_verdict["status"] == "fail"
    assert run.submission is None or not run.submission.eligible
    local = (tmp_path / "local.log").read_bytes()
    assert (
        b"".join(
            text.encode()
            for text in LiveBatch.objects.filter(run=run)
            .order_by("seq")
            .values_list("text", flat=True)
        )
        == local
    )  # every line the command printed before it stopped reached the registry


def test_what_is_not_an_iibench_log_is_sealed_without_an_entry_saying_why(
    live_site, tmp_path, declared
):
    contest = streaming_contest()
    _, key = witness_token(contest)
    done = run_client(
        registry=live_site.url, key=key, contest=contest, declared=this_machine(declared),
        tmp_path=tmp_path, command=["printf", "hello\\nno newline at the end"],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == b"hello\nno newline at the end"
    run = the_run(contest)
    assert run.sealed_at is not None and run.submission is None
    assert run.seal_message.startswith("Sealed without an entry:")
    assert b"sealed: no entry" in done.stderr
    stored = "".join(
        LiveBatch.objects.filter(run=run).order_by("seq").values_list("text", flat=True)
    )
    assert stored.encode() == (tmp_path / "local.log").read_bytes() == done.stdout
