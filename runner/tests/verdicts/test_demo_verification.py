"""The issue's "done when", on the demo data a fresh `make run` loads: an organizer verifies
the demo InnoDB entry (a real C-benchmark run with a small buffer pool) at 1/10 scale on the
`mariadb` target: runs (three by default) on a private server with the entry's settings and
one verdict that names the engine, the settings, the scale, the host and the cliff; a
`postgresql` rerun of the same entry is a comparison and leaves the badge as it was."""

import pytest

from runner.judge.scaling import MEMORY_RULES, scaled_size
from submissions.entries.demo import demo_load
from submissions.models import Submission
from submissions.setup.server_settings import MYSQL, size_text
from testing.reruns import run_to_end

pytestmark = pytest.mark.django_db

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"


def test_an_organizer_verifies_the_demo_innodb_entry_at_a_tenth_of_its_scale(
    organizer, iibench_binary, rerun_dir, recovery_dir
):
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    declared = {s.key: s.value for s in entry.server_settings.filter(source="declared")}
    assert declared == {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "2"}
    assert not entry.verified

    # One run of the three an organizer gets by default (each about 35-50 s here, three take
    # nearly two minutes): the path is the same, and test_verification.py covers repeats.
    run = run_to_end(entry, organizer, "mariadb", scale=10, repeats=1)

    assert (run.kind, run.scale, run.repeats, run.repeats_done) == ("verification", 10, 1, 1)
    assert run.rows_target == 300_000
    assert "# summary status=completed rows=300000" in run.log
    # The entry's settings, the pool scaled 1/10, as the private server reports them.
    pool = int(run.settings["innodb_buffer_pool_size"])
    asked = scaled_size(128 << 20, 10, MEMORY_RULES[MYSQL]["innodb_buffer_pool_size"])
    assert pool == asked  # whole MB, as the rule asks it
    assert run.settings["innodb_flush_log_at_trx_commit"] == "2"
    assert run.settings["innodb_lru_scan_depth"] == "154"  # 1,536 free pages scaled 1/10
    # One verdict, judged on the curve's shape, naming what ran and where the cliffs fell.
    assert run.verdict in ("reproduced", "shape_only", "not_reproduced", "inconclusive"), (
        run.message
    )
    if run.verdict == "inconclusive":  # only for a host other work kept busy meanwhile
        assert "rerun it on a quiet host" in run.message
    assert "At scale 1/10 (1 run of 300,000 rows)" in run.message
    assert "the cliff (the rate's steepest fall): " in run.message
    assert "(the claim: at " in run.message  # the claim's cliff, as a fraction of its run
    assert (
        f"InnoDB on a private mariadb server with innodb_buffer_pool_size={size_text(pool)}, "
        "innodb_flush_log_at_trx_commit=2, innodb_lru_scan_depth=154 (read back); scale 1/10, "
        "1 run on mariadb." in run.message
    )
    assert "Host comparable" in run.message or "Host not comparable" in run.message
    # The disk's pace as each log states it: the demo claim's, and this host's reads.
    assert "ms per device read" in run.message
    assert "reads per row (the claim's log: 0.118 ms, 1.20)." in run.message
    # Past the cliff the reruns read about a page per row (0.95-1.2 here, one run: the in-memory
    # phase reads none), as the claim's 1.20: the device reads were counted.
    assert run.result["reruns"][0]["reads_per_row"] > 0.5
    entry.refresh_from_db()
    assert entry.verified is (run.verdict == "reproduced")
    badge = entry.verified

    comparison = run_to_end(entry, organizer, "postgresql", rows=20_000, comparison=True)

    assert (comparison.kind, comparison.verdict) == ("comparison", "comparison")
    assert "it compares the engines, never verifies the claim" in comparison.message
    assert ". Its own engine on a private postgresql server with shared_buffers=" in (
        comparison.message
    )
    entry.refresh_from_db()
    assert entry.verified is badge
