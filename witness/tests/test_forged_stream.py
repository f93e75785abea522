"""A stream forged as a cheater would, over real HTTP against the production server: no
database, a declaration of 8 cores, 16 GB and an HDD, machine facts typed to match, made-up
report lines each sent after sleeping as long as their own clock says. It reaches `streamed`,
and nothing more: its page and API say the machine facts were reported by the client. A real C
log streamed the same way is judged by the log's own machine and physics like an upload."""

import json
import os
import time
import urllib.request

import pytest
from django.conf import settings

from testing.logs import c_log, c_log_faster, c_log_made_here
from testing.witness_rig import streaming_contest, witness_token

pytestmark = pytest.mark.django_db(transaction=True)

CLAIMED_MACHINE = {
    "cores": 8,
    "logical_cpus": 8,
    "sockets": 1,
    "memory_bytes": 16 * 2**30,
    "datadir": {"path": "/var/lib/mysql", "kind": "hdd"},
}


def post(url: str, key: str, body: dict) -> dict:
    request = urllib.request.Request(  # noqa: S310 - the test server on loopback
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
        return json.loads(response.read())


def forge(site: str, key: str, contest, declared: dict, log: bytes) -> dict:
    """The cheater's script: header at once, then each report line when its own clock says."""
    run = post(
        f"{site}/api/live/",
        key,
        {**declared, "run_key": f"forged-{time.monotonic_ns()}", "machine": CLAIMED_MACHINE},
    )
    lines = log.decode().splitlines()
    header = [line for line in lines if not line[:1].isdigit()]
    first_report = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    seq, started = 0, time.monotonic()
    post(f"{site}/api/live/{run['id']}/batches/", key, {"seq": seq, "lines": lines[:first_report]})
    seq += 1
    for line in lines[first_report:]:
        if line[:1].isdigit():
            wait = float(line.split("\t")[1]) - (time.monotonic() - started)
            if wait > 0:
                time.sleep(wait)
        post(f"{site}/api/live/{run['id']}/batches/", key, {"seq": seq, "lines": [line]})
        seq += 1
    assert header
    return post(f"{site}/api/live/{run['id']}/seal/", key, {"exit_status": 0, "batches": seq})


def claimed(declared: dict) -> dict:
    return {**declared, "sockets": 1, "cores": 8, "memory_gb": 16, "drive_kind": "hdd"}


def test_a_forged_stream_reaches_streamed_and_says_the_machine_was_only_reported(
    live_site, declared
):
    contest = streaming_contest(target_rows=50_000)
    _, key = witness_token(contest)
    # Five made-up report lines, a second apart: no database was opened.
    sealed = forge(
        live_site.url, key, contest, claimed(declared), c_log(50_000, 10_000, rate=10_000)
    )
    assert sealed["trust"] == "streamed", sealed["seal_verdicts"]
    assert "as reported by the client, not observed by the registry" in sealed["trust_means"]
    assert sealed["machine_source"] == "reported by the client, not observed by the registry"
    machine = next(v for v in sealed["seal_verdicts"] if v["rule"] == "machine_declared")
    assert "client reported" in machine["message"] and "saw" not in machine["message"]
    entry = {v["rule"]: v for v in sealed["entry"]["verdicts"]}
    assert entry["machine_in_log"]["status"] == "unverified"  # the log states no machine
    with urllib.request.urlopen(sealed["entry"]["url"], timeout=30) as response:  # noqa: S310
        page = response.read().decode()
    assert 'data-trust="streamed"' in page
    assert "as reported by the client, not observed by the registry" in page
    assert "witnessed" not in page


def test_a_real_c_log_streamed_is_judged_by_its_own_machine_and_physics(live_site, declared):
    log = c_log_made_here(str(settings.IIBENCH_BINARY), database=f"iibench_stream_{os.getpid()}")
    contest = streaming_contest(target_rows=300_000, report_every_rows=100_000)
    _, key = witness_token(contest)
    # The careless fake: times divided by 3, streamed at the fake's own pace, declared big.
    sealed = forge(live_site.url, key, contest, claimed(declared), c_log_faster(log, 3))
    assert sealed["trust"] == "streamed", sealed["seal_verdicts"]
    entry = {v["rule"]: v for v in sealed["entry"]["verdicts"]}
    assert entry["physics_cpu"]["status"] == "fail"
    assert entry["physics_cpu"]["message"].startswith(f"line {entry['physics_cpu']['line']:,}:")
    machine = entry["machine_in_log"]
    assert machine["status"] == "fail"
    assert "cores: declared 8 (the entry's declaration), the log says 2 cores" in machine["message"]
    assert "memory: declared 16 GB" in machine["message"]
    assert sealed["entry"]["eligible"] is False
    # The untouched log, declared as the log states it, passes every physics rule.
    truthful = {**declared, "sockets": 1, "cores": 2, "memory_gb": 24, "drive_kind": "ssd"}
    sealed = forge(live_site.url, key, contest, truthful, log)
    entry = {v["rule"]: v for v in sealed["entry"]["verdicts"]}
    physics = {rule: v["status"] for rule, v in entry.items() if rule.startswith("physics_")}
    assert set(physics.values()) == {"pass"}, entry
    assert entry["machine_in_log"]["status"] == "pass"
