"""Verification reruns: start, cancel, execute and sweep. Tasks, views and the admin call these."""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from runner import process, recovery, workloads
from runner.arguments import RunPlan, engine_for
from runner.crash_recovery import execute_recovery
from runner.models import RerunStatus, VerificationRun
from runner.selectors import claimed_rows
from runner.targets import Target, rerun_targets
from runner.verdicts import rerun_finish
from runner.watch import Outcome, begin_step, watch
from submissions.models import Submission, Workload

# A reproduced rerun marks its entry verified and bumps the contest's board (verdicts.py); the
# registry's tests import that call from here, where it used to live.
from submissions.services import contest_board_changed  # noqa: F401

logger = logging.getLogger(__name__)


class RerunRefused(Exception):
    def __init__(self, message: str, field: str = "non_field_errors"):
        super().__init__(message)
        self.message = message
        self.field = field


def target_named(name: str) -> Target:
    targets = rerun_targets()
    if name not in targets:
        known = ", ".join(sorted(targets))
        raise RerunRefused(
            f"Unknown target '{name}'; the configured targets are {known}.", "target"
        )
    return targets[name]


# --- start and cancel ---------------------------------------------------------------------


def rerun_start(*, submission: Submission, target: str, rows: int, requested_by) -> VerificationRun:
    chosen = target_named(target)
    if rows < 1_000:
        raise RerunRefused("A rerun needs at least 1,000 rows.", "rows")
    if rows > chosen.max_rows:
        raise RerunRefused(
            f"The {chosen.name} target allows at most {chosen.max_rows:,} rows.", "rows"
        )
    _check_workload(submission, chosen, rows)
    with transaction.atomic():
        run = VerificationRun.objects.create(
            submission=submission, target=chosen.name, rows_target=rows, requested_by=requested_by
        )
        transaction.on_commit(lambda: _enqueue(run, chosen))
    return run


def _check_workload(submission: Submission, target: Target, rows: int) -> None:
    contest = submission.contest
    recovery_targets = sorted(name for name, each in rerun_targets().items() if each.server)
    if contest.workload == Workload.CRASH_RECOVERY and not target.server:
        raise RerunRefused(
            "A crash-recovery rerun runs against a server the worker starts itself: choose "
            f"a recovery target ({', '.join(recovery_targets) or 'none is configured'}).",
            "target",
        )
    if contest.workload != Workload.CRASH_RECOVERY and target.server:
        raise RerunRefused(f"The {target.name} target runs crash-recovery reruns only.", "target")
    reason = workloads.refusal(
        contest.workload,
        _track_figures(submission),
        claimed_rows(submission),
        rows,
        target.time_limit,
    )
    if reason:
        raise RerunRefused(reason)


def _track_figures(submission: Submission) -> dict:
    # JSON the registry computed (or an entrant declared): anything but an object is no figures.
    figures = submission.track_figures
    return dict(figures) if isinstance(figures, dict) else {}


def _enqueue(run: VerificationRun, target: Target) -> bool:
    """Hand the run to the broker. When the broker is down the run stays queued and the sweep
    sends it again once the broker is back (reruns_resend): starting a rerun never fails on it."""
    from runner.tasks import run_verification

    # Celery's own limits are a safety net above the service's, which kills the benchmark itself.
    soft = target.time_limit + 60
    try:
        run_verification.apply_async(
            args=[run.pk], queue=target.queue, soft_time_limit=soft, time_limit=int(soft * 1.2)
        )
    except Exception as error:  # kombu's and redis's errors alike: retried later
        logger.warning("Rerun %s stays queued: the broker is unreachable (%s)", run.pk, error)
        return False
    # While a run is queued, heartbeat_at says when it was last handed to the broker.
    VerificationRun.objects.filter(pk=run.pk, status=RerunStatus.QUEUED).update(
        heartbeat_at=timezone.now()
    )
    return True


def rerun_cancel(*, run: VerificationRun) -> VerificationRun:
    """A queued run is cancelled at once; a running one is stopped by its worker, which looks at
    the flag every POLL_SECONDS (the worker may be on another host)."""
    now = timezone.now()
    cancelled = VerificationRun.objects.filter(pk=run.pk, status=RerunStatus.QUEUED).update(
        status=RerunStatus.CANCELLED,
        finished_at=now,
        cancel_requested=True,
        message="Cancelled before it started.",
    )
    if not cancelled:
        VerificationRun.objects.filter(pk=run.pk, status=RerunStatus.RUNNING).update(
            cancel_requested=True
        )
    run.refresh_from_db()
    return run


# --- the worker's side --------------------------------------------------------------------


def rerun_claim(*, run_id: int, worker: str) -> bool:
    """Take a queued run. A task delivered twice finds it taken and does nothing."""
    now = timezone.now()
    return (
        VerificationRun.objects.filter(pk=run_id, status=RerunStatus.QUEUED).update(
            status=RerunStatus.RUNNING, started_at=now, heartbeat_at=now, worker=worker[:200]
        )
        == 1
    )


def rerun_execute(*, run_id: int) -> VerificationRun:
    run = VerificationRun.objects.select_related("submission__contest").get(pk=run_id)
    target = target_named(run.target)
    work_dir = Path(settings.RERUN_WORK_DIR)
    work_dir.mkdir(parents=True, exist_ok=True)
    spec = _spec(run, target, work_dir)
    try:
        if spec.workload == workloads.CRASH_RECOVERY:
            outcome = execute_recovery(run, target, spec)
        else:
            outcome = _execute_steps(run, target, spec)
    except (workloads.NotPlannable, recovery.ServerError) as error:
        outcome = Outcome(RerunStatus.FAILED, str(error), "")
    return rerun_finish(run, outcome, spec)


def _spec(run: VerificationRun, target: Target, work_dir: Path) -> workloads.RerunSpec:
    submission = run.submission
    contest = submission.contest
    figures = _track_figures(submission)
    declared_engine = str(figures.get("engine") or submission.storage_engine)
    plan = RunPlan(
        binary=str(settings.IIBENCH_BINARY),
        db_url=target.url.format(work_dir=work_dir, run_id=run.pk),
        rows=run.rows_target,
        rows_per_commit=contest.rows_per_commit,
        rows_per_insert=contest.max_rows_per_insert,
        seed=run.pk,
        engine=engine_for(declared_engine, target.engines),
    )
    return workloads.RerunSpec(
        workload=contest.workload,
        plan=plan,
        figures=figures,
        claimed_rows=claimed_rows(submission),
        options=workloads.TargetOptions(target.writers, target.readers, target.query_threads),
        scratch_dir=str(work_dir / f"rerun-{run.pk}-load"),
    )


# --- runs of the benchmark, one after another ------------------------------------------------


def _execute_steps(run: VerificationRun, target: Target, spec: workloads.RerunSpec) -> Outcome:
    steps = workloads.rerun_steps(spec)
    # One time limit for the whole rerun, however many steps it has.
    deadline = time.monotonic() + target.time_limit
    logs: dict[str, str] = {}
    for index, step in enumerate(steps, 1):
        begin_step(run, step.name, index, len(steps), step.description)
        try:
            outcome = watch(
                run, process.start(step.arguments, cwd=str(settings.RERUN_WORK_DIR)),
                time_limit=target.time_limit, deadline=deadline, step=step.name,
            )  # fmt: skip
        except OSError as error:
            outcome = Outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}", "")
        finally:
            _remove_scratch(spec)
        logs[step.name] = outcome.log
        joined = _joined_log(steps, logs)
        if outcome.status != RerunStatus.SUCCEEDED:
            return replace(outcome, log=joined, step_logs=logs)
        VerificationRun.objects.filter(pk=run.pk).update(log=joined)
    return Outcome(RerunStatus.SUCCEEDED, "", _joined_log(steps, logs), step_logs=logs)


def _joined_log(steps: list[workloads.Step], logs: dict[str, str]) -> str:
    """One step's output as it is (a classic rerun's log is the benchmark's own); several
    steps each under a `# rerun step=` line."""
    if len(steps) == 1:
        return next(iter(logs.values()), "")
    parts = []
    for index, step in enumerate(steps, 1):
        if step.name in logs:
            header = f"# rerun step={step.name} ({index} of {len(steps)}): {step.description}\n"
            parts.append(header + logs[step.name])
    return "".join(parts)


def _remove_scratch(spec: workloads.RerunSpec) -> None:
    remove_scratch(db_url=spec.plan.db_url, scratch_dir=spec.scratch_dir)


def remove_scratch(*, db_url: str, scratch_dir: str) -> None:
    """A rerun's scratch: its SQLite file (with its journals) and its load directory."""
    if db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(scratch_dir, ignore_errors=True)


def _remove_scratch_of(run_id: int, target_name: str) -> None:
    """What a killed worker left behind (it never reached its `finally`)."""
    try:
        target = target_named(target_name)
    except RerunRefused:
        return  # a target no longer configured: nothing known to remove
    work_dir = Path(settings.RERUN_WORK_DIR)
    remove_scratch(
        db_url=target.url.format(work_dir=work_dir, run_id=run_id),
        scratch_dir=str(work_dir / f"rerun-{run_id}-load"),
    )


# --- nothing gets stuck -------------------------------------------------------------------


def reruns_resend(*, now=None) -> int:
    """Send again the runs still queued RERUN_RESEND_SECONDS after they were last handed to the
    broker: the broker was down when they were started, or lost them (Redis restarted without
    persistence). A run delivered twice is claimed once (rerun_claim). Returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.RERUN_RESEND_SECONDS)
    unclaimed = VerificationRun.objects.filter(status=RerunStatus.QUEUED).filter(
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff)
    )
    targets = rerun_targets()
    sent = 0
    for run in unclaimed:
        if run.target in targets and _enqueue(run, targets[run.target]):
            sent += 1
    return sent


def reruns_sweep(*, now=None) -> int:
    """Fail the runs whose worker stopped beating (killed, host lost). Returns how many."""
    now = now or timezone.now()
    timeout = settings.RERUN_HEARTBEAT_TIMEOUT
    stale = VerificationRun.objects.filter(
        status=RerunStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=timeout)
    )
    failed = 0
    for run_id, target in stale.values_list("pk", "target"):
        # One conditional UPDATE per run: a run whose worker beat meanwhile is left alone.
        if not stale.filter(pk=run_id).update(
            status=RerunStatus.FAILED,
            finished_at=now,
            message=(
                f"The worker stopped: no heartbeat for more than {timeout} s "
                "(it was killed or its host went away). Start a new rerun."
            ),
        ):
            continue
        failed += 1
        _remove_scratch_of(run_id, target)
    return failed
