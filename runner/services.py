"""Verification reruns: start, cancel, execute and sweep. Tasks, views and the admin call these."""

from __future__ import annotations

import io
import logging
import selectors
import subprocess  # only for the Popen type; process.py starts the benchmark  # nosec B404
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runner import process
from runner.arguments import RunPlan, benchmark_arguments, engine_for
from runner.compare import REPRODUCED, compare_runs
from runner.models import RerunSample, RerunStatus, VerificationRun
from submissions.logparse import LogError, parse_log
from submissions.models import Submission
from submissions.series import unpack_columns
from submissions.services import contest_board_changed

logger = logging.getLogger(__name__)

# How often the worker looks at the clock and the cancel flag while the benchmark runs.
POLL_SECONDS = 0.5


class RerunRefused(Exception):
    def __init__(self, message: str, field: str = "non_field_errors"):
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class Target:
    name: str
    url: str
    time_limit: int
    max_rows: int
    engines: list[str]

    @property
    def queue(self) -> str:
        return f"rerun.{self.name}"


def rerun_targets() -> dict[str, Target]:
    return {name: Target(name=name, **values) for name, values in settings.RERUN_TARGETS.items()}


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
    with transaction.atomic():
        run = VerificationRun.objects.create(
            submission=submission, target=chosen.name, rows_target=rows, requested_by=requested_by
        )
        transaction.on_commit(lambda: _enqueue(run, chosen))
    return run


def _enqueue(run: VerificationRun, target: Target) -> None:
    from runner.tasks import run_verification

    # Celery's own limits are a safety net above the service's, which kills the benchmark itself.
    soft = target.time_limit + 60
    run_verification.apply_async(
        args=[run.pk], queue=target.queue, soft_time_limit=soft, time_limit=int(soft * 1.2)
    )


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
    plan = _plan(run, target, work_dir)
    try:
        outcome = _watch(run, process.start(benchmark_arguments(plan), cwd=str(work_dir)), target)
    except OSError as error:
        outcome = _Outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}", "")
    finally:
        _remove_scratch_database(plan)
    return _finish(run, outcome)


def _plan(run: VerificationRun, target: Target, work_dir: Path) -> RunPlan:
    contest = run.submission.contest
    return RunPlan(
        binary=str(settings.IIBENCH_BINARY),
        db_url=target.url.format(work_dir=work_dir, run_id=run.pk),
        rows=run.rows_target,
        rows_per_commit=contest.rows_per_commit,
        rows_per_insert=contest.max_rows_per_insert,
        seed=run.pk,
        engine=engine_for(run.submission.storage_engine, target.engines),
    )


def _remove_scratch_database(plan: RunPlan) -> None:
    if plan.db_url.startswith("sqlite:///"):
        path = Path(plan.db_url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)


@dataclass(frozen=True)
class _Outcome:
    status: str
    message: str
    log: str


def _watch(run: VerificationRun, child: subprocess.Popen, target: Target) -> _Outcome:
    """Stream the benchmark's output into progress until it exits, is cancelled or times out."""
    output, errors = io.StringIO(), io.StringIO()
    reader = _LineReader(child)
    started = time.monotonic()
    last_beat = started
    stopped_as = None
    while True:
        for stream, line in reader.lines(timeout=POLL_SECONDS):
            (output if stream == "stdout" else errors).write(line)
            if stream == "stdout":
                _record_report(run, line)
        now = time.monotonic()
        if reader.closed and child.poll() is not None:
            break
        if stopped_as is None and now - started > target.time_limit:
            stopped_as = RerunStatus.TIMED_OUT
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        elif stopped_as is None and now - last_beat >= settings.RERUN_HEARTBEAT_SECONDS:
            last_beat = now
            if _beat_and_check_cancel(run):
                stopped_as = RerunStatus.CANCELLED
                process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
    log = output.getvalue() + errors.getvalue()
    if stopped_as == RerunStatus.TIMED_OUT:
        return _Outcome(
            stopped_as, f"Timed out after {target.time_limit:,} s; the benchmark was stopped.", log
        )
    if stopped_as == RerunStatus.CANCELLED:
        return _Outcome(stopped_as, "Cancelled by an organizer; the benchmark was stopped.", log)
    if child.returncode != 0:
        last_error = (errors.getvalue().strip().splitlines() or ["no message"])[-1]
        return _Outcome(
            RerunStatus.FAILED, f"The benchmark failed (exit {child.returncode}): {last_error}", log
        )
    return _Outcome(RerunStatus.SUCCEEDED, "", log)


class _LineReader:
    """Whole lines from the child's stdout and stderr as they come, without blocking longer
    than the timeout."""

    def __init__(self, child: subprocess.Popen):
        self.selector = selectors.DefaultSelector()
        self.pending = {"stdout": b"", "stderr": b""}
        self.selector.register(child.stdout, selectors.EVENT_READ, "stdout")
        self.selector.register(child.stderr, selectors.EVENT_READ, "stderr")
        self.open_streams = 2

    @property
    def closed(self) -> bool:
        return self.open_streams == 0

    def lines(self, timeout: float):
        if self.closed:
            time.sleep(timeout / 10)
            return
        for key, _ in self.selector.select(timeout):
            chunk = key.fileobj.read1(65536)
            if not chunk:
                self.selector.unregister(key.fileobj)
                self.open_streams -= 1
                if self.pending[key.data]:
                    yield key.data, self.pending.pop(key.data).decode(errors="replace")
                continue
            *complete, self.pending[key.data] = (self.pending[key.data] + chunk).split(b"\n")
            for line in complete:
                yield key.data, line.decode(errors="replace") + "\n"


def parse_report_line(line: str) -> tuple[int, float, float, float] | None:
    """rows, seconds, interval rate, cumulative rate of a C-benchmark report line, else None."""
    fields = line.split("\t")
    if len(fields) < 4 or not fields[0].isdigit():
        return None
    try:
        return int(fields[0]), float(fields[1]), float(fields[2]), float(fields[3])
    except ValueError:
        return None


def _record_report(run: VerificationRun, line: str) -> None:
    report = parse_report_line(line)
    if report is None:
        return
    rows, seconds, interval_rate, cumulative_rate = report
    RerunSample.objects.get_or_create(
        run=run,
        rows=rows,
        defaults={
            "seconds": seconds,
            "interval_rate": interval_rate,
            "cumulative_rate": cumulative_rate,
        },
    )
    VerificationRun.objects.filter(pk=run.pk).update(
        rows_done=rows, rate=interval_rate, heartbeat_at=timezone.now()
    )


def _beat_and_check_cancel(run: VerificationRun) -> bool:
    VerificationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    return VerificationRun.objects.filter(pk=run.pk, cancel_requested=True).exists()


def _finish(run: VerificationRun, outcome: _Outcome) -> VerificationRun:
    run.refresh_from_db()
    run.status = outcome.status
    run.message = outcome.message
    run.log = outcome.log
    run.finished_at = timezone.now()
    if outcome.status == RerunStatus.SUCCEEDED:
        _judge(run)
    run.save()
    return run


def _judge(run: VerificationRun) -> None:
    """Compare the finished rerun with the claim and mark the entry verified if reproduced."""
    try:
        parsed = parse_log(io.BytesIO(run.log.encode()))
    except LogError as error:
        run.status = RerunStatus.FAILED
        run.message = f"The rerun's output could not be read: {error}"
        return
    rerun_rows = np.frombuffer(parsed.series.rows, dtype=np.int64)
    rerun_seconds = np.frombuffer(parsed.series.seconds, dtype=np.float64)
    run.rows_done = int(rerun_rows[-1]) if len(rerun_rows) else 0
    run.rate = (
        run.rows_done / float(rerun_seconds[-1])
        if len(rerun_rows) and rerun_seconds[-1] > 0
        else None
    )
    submission = run.submission
    claimed = unpack_columns(submission.series.columns)
    comparison = compare_runs(
        claimed["rows"],
        claimed["seconds"],
        rerun_rows,
        rerun_seconds,
        submission.contest.rerun_tolerance,
    )
    run.verdict, run.ratio, run.message = comparison.verdict, comparison.ratio, comparison.message
    if comparison.verdict == REPRODUCED:
        Submission.objects.filter(pk=submission.pk).update(verified=True)
        contest_board_changed(contest_id=submission.contest_id)


# --- nothing gets stuck -------------------------------------------------------------------


def reruns_sweep(*, now=None) -> int:
    """Fail the runs whose worker stopped beating (killed, host lost). Returns how many."""
    now = now or timezone.now()
    timeout = settings.RERUN_HEARTBEAT_TIMEOUT
    stale = VerificationRun.objects.filter(
        status=RerunStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=timeout)
    )
    return stale.update(
        status=RerunStatus.FAILED,
        finished_at=now,
        message=(
            f"The worker stopped: no heartbeat for more than {timeout} s "
            "(it was killed or its host went away). Start a new rerun."
        ),
    )
