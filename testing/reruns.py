"""Reruns as the tests drive them: started, claimed and run to the end in the test's process, and track entries with figures given as they are."""

from runner import services as rerun_services
from runner.host import this_host
from runner.models import RerunStatus
from submissions.models import Submission
from testing.factories import ContestFactory, SubmissionFactory


def run_to_end(entry, organizer, target: str, **size):
    """A rerun started, claimed and run to its end in this process, as a worker would."""
    run = rerun_services.rerun_start(
        submission=entry, target=target, requested_by=organizer, **size
    )
    assert rerun_services.rerun_claim(run_id=run.pk, worker="test")
    run = rerun_services.rerun_execute(run_id=run.pk)
    assert run.status == RerunStatus.SUCCEEDED, f"{run.message}\n{run.log[-3000:]}"
    return run


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
