"""Issue 42: a streamed run knows the command line the witness client ran, and its verdicts use
it. The logs are real runs of today's Python iibench (mdcallag/mytools bbdf6295, made by
scripts/demo_logs/make_python_client_logs.sh), sent through the live API with the command line
each was made with; and a stream whose server is not the declared one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from submissions.live.models import LiveRun
from submissions.models import Submission
from testing.factories import ContestFactory
from testing.logs import FIXTURES
from testing.witness_rig import MACHINE, append, witness_client

pytestmark = pytest.mark.django_db

MARIADB = (
    "python3 iibench.py --dbms=mysql --db_socket=/run/mysqld/mysqld.sock --db_user=root "
    "--engine=innodb --db_name=iibench_clients_runs --num_secondary_indexes=3 "
    "--rows_per_commit=1000 --secs_per_report=1 --setup"
)
RUNS = {
    "setup-only": f"{MARIADB} --max_rows=300000",
    "secondary-at-start": f"{MARIADB} --secondary_at_start --max_rows=300000",
    "secondary-at-end": f"{MARIADB} --secondary_at_end --max_rows=300000",
    "query-thread": f"{MARIADB} --secondary_at_start --query_threads=1 --max_rows=300000",
}
THIS_SERVER = {"scheme": "mysql", "version": "10.11.19-MariaDB-0+deb12u1", "variables": {}}


def stream(entrant, declared, variant: str, *, machine=None) -> tuple[dict, Submission]:
    contest = ContestFactory(target_rows=300_000, report_every_rows=1_000_000)
    client = witness_client(entrant, contest)
    opened = client.post(
        "/api/live/",
        {
            **declared,
            "run_key": f"run-{variant}",
            "machine": machine or {**MACHINE, "db": THIS_SERVER},
            "command": RUNS[variant],
        },
        format="json",
    )
    assert opened.status_code == 201, opened.content
    run_id = opened.json()["id"]
    # The run opened as long ago as it ran (these runs took seconds): its lines are sent at once
    # here, and the registry's clock (test_seal_rules' subject) then finds none of them ahead.
    LiveRun.objects.filter(pk=run_id).update(opened_at=timezone.now() - timedelta(minutes=2))
    lines = (FIXTURES / f"python-2023-today-mariadb-{variant}.log").read_text().splitlines()
    assert append(client, run_id, 0, lines).status_code in (200, 201)
    sealed = client.post(
        f"/api/live/{run_id}/seal/", {"exit_status": 0, "batches": 1}, format="json"
    ).json()
    return sealed, LiveRun.objects.get(pk=run_id).submission


def verdict(entry: Submission, rule: str) -> dict:
    return next(v for v in entry.verdicts if v["rule"] == rule)


@pytest.fixture
def on_this_server(declared):
    return {**declared, "server_family": "mariadb", "server_version": "10.11.19-MariaDB"}


@pytest.mark.parametrize("variant", ["secondary-at-start", "query-thread"])
def test_a_stream_with_secondary_at_start_passes_indexes_by_its_command(
    entrant, on_this_server, variant
):
    _, entry = stream(entrant, on_this_server, variant)
    indexes = verdict(entry, "indexes_from_start")
    assert indexes["status"] == "pass"
    assert "--setup --secondary_at_start" in indexes["message"]
    commit = verdict(entry, "rows_per_commit")
    assert commit["status"] == "pass"
    assert "--rows_per_commit=1000" in commit["message"]


def test_a_stream_with_setup_alone_fails_indexes_naming_the_upstream_change(
    entrant, on_this_server
):
    body, entry = stream(entrant, on_this_server, "setup-only")
    indexes = verdict(entry, "indexes_from_start")
    assert indexes["status"] == "fail"
    assert "no `--secondary_at_start`" in indexes["message"]
    assert "78887ab4 (2023-08-08)" in indexes["message"]
    assert entry.eligible is False
    # Still a stream: the lines came as the run went.
    assert body["trust"] == "streamed"


def test_a_stream_with_secondary_at_end_fails_indexes(entrant, on_this_server):
    _, entry = stream(entrant, on_this_server, "secondary-at-end")
    indexes = verdict(entry, "indexes_from_start")
    assert indexes["status"] == "fail"
    assert indexes["line"] == 5  # the log's own line comes first


def test_a_stream_on_another_server_than_declared_fails_showing_both(entrant, declared):
    # Declared MySQL 5.1.25-rc (testing/entries.py); the witness read the MariaDB server.
    body, entry = stream(entrant, declared, "secondary-at-start")
    version = next(v for v in body["seal_verdicts"] if v["rule"] == "server_version_witnessed")
    assert version["status"] == "fail"
    assert "declared 5.1.25-rc, the server said 10.11.19-MariaDB-0+deb12u1" in version["message"]
    assert body["trust"] == "streamed"
    assert entry.eligible is False


def test_a_stream_on_another_machine_stays_streamed_and_is_not_eligible(entrant, on_this_server):
    machine = {**MACHINE, "datadir": {"path": "/var/lib/mysql", "kind": "ssd"}, "db": THIS_SERVER}
    body, entry = stream(entrant, on_this_server, "secondary-at-start", machine=machine)
    assert body["trust"] == "streamed"
    assert entry.eligible is False
    assert "drive: declared hdd, the client reported ssd" in entry.ineligible_reason or any(
        "drive: declared hdd" in v["message"] for v in entry.verdicts if v["status"] == "fail"
    )


def test_the_run_page_shows_the_witnessed_server_beside_the_declared_one(entrant, declared, client):
    stream(entrant, declared, "secondary-at-start")
    run = LiveRun.objects.get(submission__isnull=False, command=RUNS["secondary-at-start"])
    page = client.get(run.get_absolute_url()).content.decode()
    assert "mysql 10.11.19-MariaDB-0+deb12u1; declared 5.1.25-rc" in page
    assert RUNS["secondary-at-start"] in page
