"""A PostgreSQL claim with a cliff, verified (issue 33 §2): the claim's log was made on this
machine with the C benchmark against a private PostgreSQL 15 in a memory cgroup of 80 MB
(shared_buffers 20 MB), and its entry declares that RAM. A verification at 1/2 runs on a real
private server in a memory cgroup of the RAM scaled (page_cache.py), which the run records as
read back from the cgroup, with the page cache charged to it; the rerun's curve has its cliff,
placed where its device reads begin (PostgreSQL's rate falls in steps before that, so its
steepest fall moved between identical runs: docs/scaling.md "PostgreSQL").
Without a cgroup (RERUN_CGROUP_ROOT where none can be made) the page cache is not bounded: the
verdict says so and is at best shape_only."""

import time
from pathlib import Path

import psycopg
import pytest
from django.urls import reverse

from runner import servers
from runner.host import this_host
from runner.rejudge import rerun_rejudge
from runner.verification import memory_text
from submissions.entries import services as entry_services
from submissions.setup.page_cache import scaled_ram
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.reruns import assert_reproduced_unless_busy, run_to_end, without_cgroup

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[3] / "submissions" / "tests" / "fixtures" / "logs"
CLAIM = FIXTURES / "iibench-c-postgresql-80mb-cgroup-500k.log"
CLAIM_RAM_MB = 80


def postgresql_claim():
    contest = ContestFactory(target_rows=500_000, rerun_tolerance=0.25)
    host = this_host()  # the claim was made here: its cores and drive are this host's
    declared = {
        **DECLARED,
        "cores": host["cores"],
        "drive_kind": host["drive_kind"],
        "server_family": "postgresql",
        "server_version": "15.20",
        "storage_engine": "heap",
        "memory_gb": CLAIM_RAM_MB / 1024,
        "server_config": "shared_buffers = 20MB\nsynchronous_commit = off\n",
        "solution_description": "PostgreSQL 15 in an 80 MB memory cgroup.",
    }
    return entry_services.entry_create(
        contest=contest, owner=UserFactory(), declared=declared, log_file=upload(CLAIM.read_bytes())
    )


def test_a_postgresql_claim_is_verified_in_a_memory_cgroup_of_its_ram_scaled(
    organizer, iibench_binary, rerun_dir, recovery_dir, client
):
    entry = postgresql_claim()
    run = run_to_end(entry, organizer, "postgresql", scale=2, repeats=1)

    limit = scaled_ram(CLAIM_RAM_MB << 20, 2)
    # The limit as the kernel holds it, read back after the server started, on the run.
    assert run.host["memory_limit_bytes"] == limit
    shown = f"memory limit {memory_text(limit)} read back from the cgroup"
    assert run.host["memory_limit"] == shown
    # The data files' pages the server wrote and read were charged to its cgroup (its page
    # cache less shared memory, shared_buffers), and the limit bounded them.
    assert 0 < run.host["page_cache_bytes"] < limit - (10 << 20)
    assert "# rerun server memory limit: cgroup v" in run.log
    assert run.settings["shared_buffers"] == "10MB"  # 20 MB scaled 1/2
    # What the organizer sees: the API and the entry page name the limit read back.
    client.force_login(organizer)
    api = client.get(reverse("api_rerun", args=[run.pk])).json()
    assert api["host"]["memory_limit"] == shown
    page = client.get(entry.get_absolute_url()).content.decode()
    assert f"Server {shown}" in page
    # The rerun's curve falls off a cliff, as the claim's did, placed where its device reads
    # began, and the verdict judges the claim by it: where it falls, how far, and the rates
    # apart from the disk (the PostgreSQL log states its device reads and its server's CPU).
    rerun = run.result["reruns"][0]
    assert rerun["cliff_fraction"] is not None, run.message
    assert "the cliff (where the device reads began): at " in run.message
    assert "(the claim: at 72% of the run)" in run.message
    assert "PostgreSQL's rate falls gradually, and in steps, before it reads" in run.message
    assert "Host comparable" in run.message
    assert "The claim was judged apart from its disk" in run.message
    assert "the page cache was not bounded" not in run.message
    assert_reproduced_unless_busy(run, entry)


def test_without_a_memory_cgroup_the_verdict_is_at_best_shape_only_and_says_why(
    organizer, iibench_binary, rerun_dir, recovery_dir, settings, tmp_path
):
    entry = postgresql_claim()
    nowhere = without_cgroup(settings, tmp_path)
    # A tenth of the rows: quick, and without the limit the table stays in the page cache.
    run = run_to_end(entry, organizer, "postgresql", rows=50_000, repeats=1)

    assert run.host["memory_limit"] == (
        f"no memory limit: no cgroup memory controller is mounted at {nowhere}"
    )
    assert "# rerun server memory limit: none from the operating system" in run.log
    assert run.verdict in ("shape_only", "inconclusive"), run.message
    assert (
        "no memory cgroup could be made for the private server (no cgroup memory controller "
        f"is mounted at {nowhere}): its page cache was not bounded to the claim's RAM scaled "
        "1/10, so the cliff, the fall and the rates were not compared"
    ) in run.message
    entry.refresh_from_db()
    assert not entry.verified
    # Judged again later (a judge's change), it still knows the page cache was not bounded.
    verdict = run.verdict
    rerun_rejudge(run=run)
    run.refresh_from_db()
    assert run.verdict == verdict
    assert "its page cache was not bounded" in run.message


def test_the_data_files_pages_are_charged_to_the_servers_cgroup_and_go_with_its_database(
    recovery_dir,
):
    """The server's own process writes the data files, so their page cache is charged to its
    cgroup; a verification's next repeat drops the database first, and its cached pages go
    with its files: nothing of one run is cached for the next."""
    config = servers.server_config("postgresql")
    with servers.PrivateServer(
        config, "pgcache", settings={"shared_buffers": "8MB"}, memory_limit=256 << 20
    ) as server:
        server.initialize()
        server.start()
        assert server.wait_until_answering(deadline=time.monotonic() + 60) is None
        server.create_database()
        before = server.cgroup.page_cache()
        with psycopg.connect(server.client_url, autocommit=True) as connection:
            connection.execute(
                "CREATE TABLE t AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 80000) g"
            )  # about 20 MB of table, written by the server's backend
        filled = server.cgroup.page_cache()
        assert filled - before > 10 << 20, (before, filled)
        assert filled < server.cgroup.limit_read_back()
        server.create_database(fresh=True)  # what a verification does before each repeat
        assert server.cgroup.page_cache() < filled - (10 << 20)
