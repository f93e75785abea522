"""`manage.py reproduce_seeds` at a tiny scale: each engine of the comparisons asked runs on a
private server of its own (MyRocks with its plugin, PostgreSQL as it is; MyISAM's in a memory
cgroup of the seed host's memory scaled), the figures its log gives are stored, with a reference
row "reproduced on <host> at 1/k" in the contests of the comparison's workload, and /seeds/
shows the measured ratio beside the published one and each run's memory limit."""

import pytest
from django.core.management import CommandError, call_command

from submissions.models import ReferenceResult, SeedReproduction, Workload
from testing.factories import ContestFactory
from testing.reruns import without_cgroup

pytestmark = pytest.mark.django_db
SCALE = 50_000  # classic: 20,000 rows; queries: 2,500 rows
MIB = 1 << 20


def test_the_command_runs_the_comparisons_and_stores_them(
    iibench_binary, recovery_dir, monkeypatch, client, capsys
):
    monkeypatch.setenv("REPRODUCE_SEEDS_HOST", "test-host")
    classic = ContestFactory(slug="classic-one")
    query = ContestFactory(slug="query-one", workload=Workload.QUERY)

    call_command(
        "reproduce_seeds", "--scale", str(SCALE), "--comparisons", "classic,queries",
        "--engines", "ROCKSDB,InnoDB,MyISAM",
    )  # fmt: skip

    said = capsys.readouterr().out
    assert "classic: ROCKSDB, 20,000 rows, rocksdb_block_cache_size=8,192 kB" in said
    assert "4 runs stored, 0 failed" in said
    runs = {(r.comparison, r.engine): r for r in SeedReproduction.objects.all()}
    assert set(runs) == {
        ("classic", "ROCKSDB"),
        ("classic", "InnoDB"),
        ("queries", "ROCKSDB"),
        ("queries", "MyISAM"),
    }
    for run in runs.values():
        assert run.status == "completed", run.message
        assert run.host == "test-host" and run.scale == SCALE
        assert run.terminal_rate > 0 and run.curve and "load average" in run.load
    assert runs[("classic", "InnoDB")].rows == 20_000
    assert runs[("classic", "InnoDB")].cache_at_floor  # 16 GB x 0.7 / 50,000 < 8 MB
    assert runs[("queries", "MyISAM")].query_seconds > 0  # the query thread's mean time
    # MyISAM's files live in the page cache: its server ran in a cgroup of 8 GB scaled 1/50,000,
    # held at its floor (53 + 11 MB), as read back from the cgroup; InnoDB's pool needs none.
    myisam = runs[("queries", "MyISAM")]
    assert myisam.memory_limit_bytes == 64 * MIB
    assert myisam.memory_limit.startswith("memory limit 64 MB read back from the cgroup: ")
    assert "held at its floor of 11 MB" in myisam.memory_limit
    assert "MyISAM, 2,500 rows, key_buffer_size=1,024 kB, memory cgroup 65,536 kB" in said
    assert "\n  memory limit 64 MB read back from the cgroup: the seed host's 8 GB" in said
    assert runs[("classic", "InnoDB")].memory_limit_bytes is None
    assert runs[("classic", "InnoDB")].memory_limit.startswith("no memory cgroup needed")
    labels = set(ReferenceResult.objects.filter(contest=classic).values_list("label", flat=True))
    assert labels == {
        "MyRocks reproduced on test-host at 1/50,000 (classic comparison)",
        "InnoDB reproduced on test-host at 1/50,000 (classic comparison)",
    }
    assert ReferenceResult.objects.filter(contest=query).count() == 2

    page = client.get("/seeds/").content.decode()
    ratio = runs[("classic", "ROCKSDB")].terminal_rate / runs[("classic", "InnoDB")].terminal_rate
    assert f"{ratio:.1f}x" in page
    assert "reproduced on test-host at 1/50,000" in page
    assert "memory limit 64 MB read back from the cgroup" in page


def test_without_a_cgroup_the_run_is_made_and_says_its_page_cache_was_not_bounded(
    iibench_binary, recovery_dir, settings, tmp_path, capsys
):
    nowhere = without_cgroup(settings, tmp_path)

    call_command(
        "reproduce_seeds", "--scale", str(SCALE), "--comparisons", "queries", "--engines", "MyISAM"
    )

    (myisam,) = SeedReproduction.objects.all()
    assert myisam.status == "completed" and myisam.terminal_rate > 0
    assert myisam.memory_limit_bytes is None
    assert myisam.memory_limit == (
        f"no memory limit (no cgroup memory controller is mounted at {nowhere}): its page cache "
        "was not bounded to the seed host's memory scaled 1/50,000"
    )
    assert "its page cache was not bounded" in capsys.readouterr().out


def test_it_refuses_a_comparison_or_scale_it_does_not_know():
    with pytest.raises(CommandError, match="no comparison tokudb: the seeds' are classic"):
        call_command("reproduce_seeds", "--scale", "1000", "--comparisons", "tokudb")
    with pytest.raises(CommandError, match="at least 1"):
        call_command("reproduce_seeds", "--scale", "0")
