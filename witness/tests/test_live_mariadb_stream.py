"""Issue 30: a live MariaDB run's page keeps up with it. The C benchmark runs on the shared
MariaDB (its header lists every server setting: hundreds of `# setting` lines) wrapped by the
witness client against the real site; while it runs, the live API's rows never fall behind
what the client had sent more than one batch ago."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

from submissions.live.models import LiveRun
from testing.logs import shared_mariadb_database
from testing.witness_rig import (
    IIBENCH,
    start_client,
    streaming_contest,
    the_run,
    this_machine,
    witness_token,
)

pytestmark = pytest.mark.django_db(transaction=True)

BATCH_SECONDS = 1.0  # the client's --interval: it sends what it has every second
# One batch interval, the poll's own round trip and the server's append: what "within one
# batch" allows between a line reaching the client's log and the live API.
CATCH_UP_SECONDS = 2 * BATCH_SECONDS + 1.0


def last_reported_rows(log: Path) -> int:
    rows = 0
    if log.exists():
        for line in log.read_text(errors="replace").splitlines():
            if line[:1].isdigit():
                rows = int(line.split("\t", 1)[0])
    return rows


def live_rows(url: str) -> int | None:
    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - loopback  # nosec B310
        return json.loads(answer.read())["rows"]


def test_a_live_mariadb_run_with_its_full_header_keeps_up_with_what_was_sent(
    live_site, tmp_path, declared
):
    contest = streaming_contest(target_rows=400_000, report_every_rows=20_000)
    _, key = witness_token(contest)
    setup = {**this_machine(declared), "server_family": "mariadb", "storage_engine": "InnoDB",
             "server_version": "10.11"}  # fmt: skip
    local = tmp_path / "local.log"

    with shared_mariadb_database(f"iibench_live_{os.getpid()}") as url:
        client = start_client(
            registry=live_site.url, key=key, contest=contest, declared=setup,
            tmp_path=tmp_path, interval=BATCH_SECONDS,
            command=[str(IIBENCH), "--db", url, "--rows", "400000", "--report-every", "20000",
                     "--max-rate", "60000"],
        )  # fmt: skip
        seen: list[tuple[float, int]] = []  # (when, rows in the client's log)
        behind: list[str] = []
        polls = 0
        while client.poll() is None:
            now = time.monotonic()
            seen.append((now, last_reported_rows(local)))
            run = LiveRun.objects.filter(contest=contest).first()
            if run is not None:
                rows = live_rows(f"{live_site.url}/api/live/{run.pk}/")
                polls += 1
                sent = max((r for at, r in seen if at <= now - CATCH_UP_SECONDS), default=0)
                if (rows or 0) < sent:
                    behind.append(
                        f"{rows} rows live while the log had {sent} {CATCH_UP_SECONDS} s ago"
                    )
            time.sleep(0.3)
        _, stderr = client.communicate(timeout=60)

    assert client.returncode == 0, stderr.decode()[-2000:]
    header = local.read_text().splitlines()
    assert sum(line.startswith("# setting ") for line in header) > 300  # MariaDB's whole list
    assert polls >= 5, f"only {polls} polls while the run streamed"
    assert behind == [], behind[:5]
    run = the_run(contest)
    assert run.rows == 400_000 == run.submission.rows
