"""MyISAM and Aria claims with a cliff, verified (issue 33 §3): each claim's log was made on this
machine with the C benchmark (`--engine MyISAM`, `--engine Aria`) against a private MariaDB
10.11 in a memory cgroup (80 MB with key_buffer_size 4 MB; 112 MB with
aria_pagecache_buffer_size 4 MB), and its entry declares that RAM. Both engines keep their
blocks in a buffer of their own and their files in the page cache, so, as for PostgreSQL, a
verification at 1/2 runs on a real private server in a memory cgroup of the RAM scaled
(page_cache.py, the engine's rule), with the buffer scaled by its measured rule; the run
records the limit read back from the cgroup (docs/scaling.md "MyISAM and Aria"). Without a
cgroup the page cache is not bounded: the verdict says so and is at best shape_only."""

from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import reverse

from runner.host import this_host
from runner.verification import memory_text
from submissions.entries import services as entry_services
from submissions.setup.page_cache import ARIA_RAM, MYISAM_RAM, RamRule, scaled_ram
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory
from testing.reruns import assert_reproduced_unless_busy, run_to_end, without_cgroup

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[3] / "submissions" / "tests" / "fixtures" / "logs"


@dataclass(frozen=True)
class Claim:
    engine: str
    log: str
    ram_mb: int
    buffer_key: str
    buffer_mb: int
    rows: int
    rule: RamRule


MYISAM = Claim(
    "MyISAM", "iibench-c-mariadb-myisam-80mb-cgroup-480k.log", 80, "key_buffer_size", 4,
    480_000, MYISAM_RAM,
)  # fmt: skip
ARIA = Claim(
    "Aria", "iibench-c-mariadb-aria-112mb-cgroup-560k.log", 112, "aria_pagecache_buffer_size",
    4, 560_000, ARIA_RAM,
)  # fmt: skip


def page_cache_claim(claim: Claim = MYISAM):
    contest = ContestFactory(target_rows=claim.rows, rerun_tolerance=0.25)
    host = this_host()  # the claim was made here: its cores and drive are this host's
    declared = {
        **DECLARED,
        "cores": host["cores"],
        "drive_kind": host["drive_kind"],
        "server_family": "mariadb",
        "server_version": "10.11",
        "storage_engine": claim.engine,
        "memory_gb": claim.ram_mb / 1024,
        "server_config": (
            f"[mysqld]\n{claim.buffer_key} = {claim.buffer_mb}M\ninnodb_buffer_pool_size = 8M\n"
        ),
        "solution_description": (
            f"{claim.engine} on MariaDB 10.11 in a {claim.ram_mb} MB memory cgroup."
        ),
    }
    log = (FIXTURES / claim.log).read_bytes()
    return entry_services.entry_create(
        contest=contest, owner=UserFactory(), declared=declared, log_file=upload(log)
    )


@pytest.mark.parametrize("claim", [MYISAM, ARIA], ids=lambda claim: claim.engine)
def test_a_page_cache_engines_claim_is_verified_in_a_memory_cgroup_of_its_ram_scaled(
    claim, organizer, iibench_binary, rerun_dir, recovery_dir, client
):
    entry = page_cache_claim(claim)
    # Two repeats: one rerun of a claim this short (MyISAM's 22 s, Aria's 52 s) bends with the
    # host's disk (in a whole suite's run one ran 1.4x slower than quiet ones, the CPU quiet,
    # and its curve strayed from the claim's dip before the cliff); two give the judge their
    # own spread of the curve and of the CPU share.
    run = run_to_end(entry, organizer, "mariadb", scale=2, repeats=2)

    limit = scaled_ram(claim.ram_mb << 20, 2, claim.rule)
    # The limit as the kernel holds it, read back after the server started, on the run.
    assert run.host["memory_limit_bytes"] == limit
    shown = f"memory limit {memory_text(limit)} read back from the cgroup"
    assert run.host["memory_limit"] == shown
    assert "# rerun server memory limit: cgroup v" in run.log
    assert f"the declared {claim.ram_mb} MB RAM scaled 1/2" in run.log
    # The index files' and data file's pages were charged to the server's cgroup.
    assert 0 < run.host["page_cache_bytes"] < limit
    # The buffer scaled by the engine's measured rule, as the server reports it back.
    assert run.settings[claim.buffer_key] == str((claim.buffer_mb << 20) // 2)
    # The rerun ran the claim's engine.
    assert f"# param engine={claim.engine}" in run.log
    client.force_login(organizer)
    api = client.get(reverse("api_rerun", args=[run.pk])).json()
    assert api["host"]["memory_limit"] == shown
    page = client.get(entry.get_absolute_url()).content.decode()
    assert f"Server {shown}" in page
    # The rerun's curve falls off a cliff, as the claim's did, and the verdict judges it.
    rerun = run.result["reruns"][0]
    assert rerun["cliff_fraction"] is not None, run.message
    assert "the page cache was not bounded" not in run.message
    assert "Host comparable" in run.message
    # Aria's claim was made when the host ran its in-memory phase 2x slower than its reruns
    # do: its server's CPU share past the cliff is above theirs, explained by its reads' own
    # time (test_rerun_judge_classic's slower CPU), not held against it.
    assert_reproduced_unless_busy(run, entry)


def test_without_a_memory_cgroup_a_myisam_verdict_is_at_best_shape_only_and_says_why(
    organizer, iibench_binary, rerun_dir, recovery_dir, settings, tmp_path
):
    entry = page_cache_claim()
    nowhere = without_cgroup(settings, tmp_path)
    # A tenth of the rows: quick, and without the limit the files stay in the page cache.
    run = run_to_end(entry, organizer, "mariadb", rows=48_000, repeats=1)

    assert run.host["memory_limit"] == (
        f"no memory limit: no cgroup memory controller is mounted at {nowhere}"
    )
    assert run.verdict in ("shape_only", "inconclusive"), run.message
    assert (
        "no memory cgroup could be made for the private server (no cgroup memory controller "
        f"is mounted at {nowhere}): its page cache was not bounded to the claim's RAM scaled "
        "1/10, so the cliff, the fall and the rates were not compared"
    ) in run.message
    entry.refresh_from_db()
    assert not entry.verified
