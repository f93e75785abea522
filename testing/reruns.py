"""Reruns as the tests drive them: started, claimed and run to the end in the test's process, and track entries with figures given as they are."""

from io import StringIO
from pathlib import Path

from django.core.management import call_command
from django.utils import timezone

from runner import services as rerun_services
from runner.host import this_host
from runner.models import RerunStatus, VerificationRun
from submissions.entries import services as entry_services
from submissions.entries.demo import demo_load
from submissions.models import Submission
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, SubmissionFactory, UserFactory
from testing.logs import python_log


def run_to_end(entry, organizer, target: str, **size):
    """A rerun started, claimed and run to its end in this process, as a worker would."""
    run = rerun_services.rerun_start(
        submission=entry, target=target, requested_by=organizer, **size
    )
    assert rerun_services.rerun_claim(run_id=run.pk, worker="test")
    run = rerun_services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    return run


def assert_reproduced_unless_busy(run, entry) -> None:
    """An honest claim's verdict: reproduced; inconclusive only where other work was measured
    keeping the host busy during the rerun (which slows it below the claim), and then said so.
    The entry's badge follows the verdict."""
    assert run.verdict in ("reproduced", "inconclusive"), run.message
    if run.verdict == "inconclusive":
        assert "rerun it on a quiet host" in run.message, run.message
    entry.refresh_from_db()
    assert entry.verified is (run.verdict == "reproduced")


def without_cgroup(settings, tmp_path: Path) -> Path:
    """Reruns' servers get no memory cgroup: the cgroup root points where none is mounted."""
    nowhere = tmp_path / "no-cgroup"
    nowhere.mkdir()
    settings.RERUN_CGROUP_ROOT = nowhere
    return nowhere


def track_entry(workload: str, figures: dict, rows: int = 1_000_000_000, **contest) -> Submission:
    """An entry of a track as the registry stores it: the figures the registry engineer's code
    computes, given here as they are (no log is parsed). It declares this machine's cores,
    memory and drive kind: the tracks' figures are absolute speeds, compared only on a host like
    the declared one."""
    contest.setdefault("rerun_tolerance", 0.25)
    host = this_host()
    return SubmissionFactory(
        contest=ContestFactory(workload=workload, **contest),
        track_figures=figures,
        rows=rows,
        cores=host["cores"],
        memory_gb=host["memory_gb"],
        drive_kind=host["drive_kind"],
    )


# --- reruns stored as a worker stores them -------------------------------------------------

LOGS = Path(__file__).resolve().parents[1] / "submissions" / "tests" / "fixtures" / "logs"
HEADER = (
    "# rerun server: private mariadb pid=4150 port=40000\n"
    "# rerun setting innodb_buffer_pool_size=26214400 (asked 25M)\n"
    "# rerun setting innodb_flush_log_at_trx_commit=2\n"
)


def stored_log(names: list[str]) -> str:
    """A rerun's log as execute_repeats stores it: the header, then each repeat's output (under
    a `# rerun repeat=` line when there are several)."""
    log = HEADER
    for number, name in enumerate(names, 1):
        if len(names) > 1:
            log += f"# rerun repeat={number} of {len(names)}\n"
        log += (LOGS / name).read_text()
    return log


def stored_run(
    entry: Submission, names: list[str], verdict: str, message: str, *, worker: str = ""
):
    """A finished rerun of `entry` on `mariadb` at 1/10 whose log holds these fixture logs,
    stored as a worker stores it (by `worker`, celery@HOST, where given)."""
    finished = timezone.now()
    return VerificationRun.objects.create(
        submission=entry,
        target="mariadb",
        kind="verification",
        scale=10,
        repeats=len(names),
        repeats_done=len(names),
        status=RerunStatus.SUCCEEDED,
        rows_target=300_000,
        rows_done=300_000,
        settings={"innodb_buffer_pool_size": "26214400", "innodb_flush_log_at_trx_commit": "2"},
        host={"comparison": "Host comparable (AMD EPYC, 2 cores, 23.5 GB, hdd drive)."},
        verdict=verdict,
        message=message,
        log=stored_log(names),
        started_at=finished,
        worker=worker,
        finished_at=finished,
    )


# The demo claim the rejudging tests rerun.
DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"


# Three 1/10 reruns of the demo claim on a 25 MB pool, made on the claim's own machine.
TRUE_RERUNS = [f"iibench-c-mariadb-25mb-pool-300k-{n}.log" for n in (1, 2, 3)]


def rejudge() -> str:
    out = StringIO()
    call_command("rerun_rejudge", stdout=out)
    return out.getvalue()


MY_CNF = """\
[mysqld]
innodb_buffer_pool_size = 1G
innodb-flush-log-at-trx-commit = 2
init_file = /tmp/anything.sql
innodb_additional_mem_pool_size = 8M
"""


def entry_with(config: str, **declared):
    contest = ContestFactory(target_rows=5_000_000, rerun_tolerance=0.25)
    log = python_log(rows=2_000_000, rates=[5_000.0, 5_000.0])
    return entry_services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "server_config": config, **declared},
        log_file=upload(log),
    )


def judged_demo_reruns() -> tuple[VerificationRun, VerificationRun]:
    """The demo registry with two finished 1/10 reruns in its open contest: the demo claim's
    three real reruns judged as a worker judges them (reproduced), and the other demo solution's
    run stored inconclusive (its host busy), the longest verdict word a badge holds."""
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    judged = stored_run(entry, TRUE_RERUNS, "not_reproduced", "Old.")
    rejudge()
    judged.refresh_from_db()
    other = Submission.objects.get(entrant_name=OTHER_DEMO_SOLUTION)
    busy = (
        "Inconclusive at 1/10 on mariadb: the host was busy (1.20 cores of other work), which "
        "moves what differed: rerun it on a quiet host."
    )
    inconclusive = stored_run(other, TRUE_RERUNS[:1], "inconclusive", busy)
    inconclusive.result = {"headline": busy}
    inconclusive.save(update_fields=["result"])
    return judged, inconclusive


OTHER_DEMO_SOLUTION = "Demo: C iiBench on MariaDB, 128 MB pool, flushed at each commit"
