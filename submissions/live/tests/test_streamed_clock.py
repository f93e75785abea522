"""Streamed means the registry watched it run (issue 40): with a fixed 60 s of clock slack, a
script streamed a made-up 47 s log in 2 s and earned "streamed". Through the API, with the
registry's own receipt clock: the same forgery is now self-reported, naming what the clock
allowed, and an honest short stream paced in real time is still streamed."""

import time

import pytest

from testing.logs import c_log
from testing.witness_rig import MACHINE, streaming_contest, witness_client

pytestmark = pytest.mark.django_db


def stream(client, declared: dict, log: bytes, *, seconds_per_log_second: float) -> dict:
    """Open a run, send the header at once, then each report line when `seconds_per_log_second`
    times its own elapsed seconds have passed (1.0: in real time; less: in a hurry); seal."""
    opened = client.post(
        "/api/live/",
        {**declared, "run_key": f"clock-{time.monotonic_ns()}", "machine": MACHINE},
        format="json",
    )
    assert opened.status_code == 201, opened.content
    run_id = opened.json()["id"]
    lines = log.decode().splitlines()
    first_report = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    batches = [lines[:first_report], *([line] for line in lines[first_report:])]
    started = time.monotonic()
    for seq, batch in enumerate(batches):
        if batch[0][:1].isdigit():
            due = float(batch[0].split("\t")[1]) * seconds_per_log_second
            time.sleep(max(due - (time.monotonic() - started), 0))
        answer = client.post(
            f"/api/live/{run_id}/batches/", {"seq": seq, "lines": batch}, format="json"
        )
        assert answer.status_code == 200, answer.content
    sealed = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": len(batches)}, format="json"
    )
    assert sealed.status_code == 200, sealed.content
    return sealed.json()


def clock_verdict(sealed: dict) -> dict:
    return next(v for v in sealed["seal_verdicts"] if v["rule"] == "clock_agrees")


def test_a_47_s_log_forged_in_2_s_is_not_streamed(entrant, declared):
    contest = streaming_contest(target_rows=470_000, report_every_rows=10_000)
    client = witness_client(entrant, contest)
    forged = c_log(470_000, 10_000, rate=10_000)  # 47 reports, a second apart
    started = time.monotonic()
    sealed = stream(client, declared, forged, seconds_per_log_second=2 / 47)
    assert time.monotonic() - started < 20  # sent in a hurry (about 2 s)
    verdict = clock_verdict(sealed)
    assert verdict["status"] == "fail"
    assert "the clock allowed the log" in verdict["message"]
    assert "5% of the" in verdict["message"]
    assert sealed["trust"] == "self-reported"


def test_an_honest_short_stream_paced_in_real_time_is_streamed(entrant, declared):
    contest = streaming_contest(target_rows=40_000, report_every_rows=10_000)
    client = witness_client(entrant, contest)
    honest = c_log(40_000, 10_000, rate=10_000)  # 4 reports: a 4 s run
    sealed = stream(client, declared, honest, seconds_per_log_second=1.0)
    verdict = clock_verdict(sealed)
    assert verdict["status"] == "pass", verdict
    assert "the clock allowed the log" in verdict["message"]
    assert sealed["trust"] == "streamed", sealed["seal_verdicts"]
    # The trust sentence says what the clock allowed.
    assert (
        "more than 5% of the time the registry had watched (at most 60 s)"
        in (sealed["trust_means"])
    )
