"""Verification reruns: start, cancel, execute and sweep. Tasks, views and the admin call these."""

from __future__ import annotations

import io
import logging
import re
import selectors
import shutil
import subprocess  # only for the Popen type; process.py starts the benchmark  # nosec B404
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runner import measure, process, recovery, workloads
from runner.arguments import RunPlan, engine_for
from runner.compare import REPRODUCED, Comparison, compare_runs
from runner.compare_tracks import (
    RecoveryFigures,
    compare_bulk_load,
    compare_fifo,
    compare_key_types,
    compare_queries,
    compare_recovery,
)
from runner.models import RerunSample, RerunStatus, VerificationRun
from submissions.logparse import LogError, parse_log
from submissions.logparse.model import ParsedLog
from submissions.models import Submission, Workload
from submissions.series import unpack_columns
from submissions.services import contest_board_changed

logger = logging.getLogger(__name__)

# How often the worker looks at the clock and the cancel flag while the benchmark runs.
POLL_SECONDS = 0.5
# How often a private server is asked whether it answers: every 20 ms at first, then every 5%
# of the time waited so far (at most 0.5 s), so the recovery time is measured to about 5% and
# a recovery of minutes does not fill the server's log with refused probes.
SERVER_POLL_SECONDS = 0.02
SERVER_POLL_FRACTION = 0.05
SERVER_POLL_MAX_SECONDS = 0.5


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
    # "mariadb" or "postgresql" for a crash-recovery target: the worker starts its own server.
    server: str = ""
    # Seed 004's 10 writers and 100 readers, and seed 001's query thread, scaled to this host.
    writers: int = 2
    readers: int = 2
    query_threads: int = 1

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
        submission.track_figures or {},
        _claimed_rows(submission),
        rows,
        target.time_limit,
    )
    if reason:
        raise RerunRefused(reason)


def _claimed_rows(submission: Submission) -> int:
    return submission.rows or submission.contest.target_rows


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


@dataclass(frozen=True)
class _Outcome:
    status: str
    message: str
    log: str
    # Each step's own output, for the judge (the stored log joins them).
    step_logs: dict[str, str] = field(default_factory=dict)
    result: dict = field(default_factory=dict)


def rerun_execute(*, run_id: int) -> VerificationRun:
    run = VerificationRun.objects.select_related("submission__contest").get(pk=run_id)
    target = target_named(run.target)
    work_dir = Path(settings.RERUN_WORK_DIR)
    work_dir.mkdir(parents=True, exist_ok=True)
    spec = _spec(run, target, work_dir)
    try:
        if spec.workload == workloads.CRASH_RECOVERY:
            outcome = _execute_recovery(run, target, spec)
        else:
            outcome = _execute_steps(run, target, spec)
    except (workloads.NotPlannable, recovery.ServerError) as error:
        outcome = _Outcome(RerunStatus.FAILED, str(error), "")
    return _finish(run, outcome)


def _spec(run: VerificationRun, target: Target, work_dir: Path) -> workloads.RerunSpec:
    submission = run.submission
    contest = submission.contest
    figures = dict(submission.track_figures or {})
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
        claimed_rows=_claimed_rows(submission),
        options=workloads.TargetOptions(target.writers, target.readers, target.query_threads),
        scratch_dir=str(work_dir / f"rerun-{run.pk}-load"),
    )


# --- runs of the benchmark, one after another ------------------------------------------------


def _execute_steps(run: VerificationRun, target: Target, spec: workloads.RerunSpec) -> _Outcome:
    steps = workloads.rerun_steps(spec)
    # One time limit for the whole rerun, however many steps it has.
    deadline = time.monotonic() + target.time_limit
    logs: dict[str, str] = {}
    for index, step in enumerate(steps, 1):
        _begin_step(run, step.name, index, len(steps), step.description)
        try:
            outcome = _watch(
                run, process.start(step.arguments, cwd=str(settings.RERUN_WORK_DIR)),
                target, deadline=deadline, step=step.name,
            )  # fmt: skip
        except OSError as error:
            outcome = _Outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}", "")
        finally:
            _remove_scratch(spec)
        logs[step.name] = outcome.log
        joined = _joined_log(steps, logs)
        if outcome.status != RerunStatus.SUCCEEDED:
            return replace(outcome, log=joined, step_logs=logs)
        VerificationRun.objects.filter(pk=run.pk).update(log=joined)
    return _Outcome(RerunStatus.SUCCEEDED, "", _joined_log(steps, logs), step_logs=logs)


def _begin_step(run: VerificationRun, name: str, index: int, count: int, description: str) -> None:
    changes = {"step": name, "rows_done": 0, "rate": None, "heartbeat_at": timezone.now()}
    if count > 1:
        changes["message"] = f"Step {index} of {count}: {description}."
    VerificationRun.objects.filter(pk=run.pk).update(**changes)


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
    url = spec.plan.db_url
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(spec.scratch_dir, ignore_errors=True)


def _watch(
    run: VerificationRun,
    child: subprocess.Popen,
    target: Target,
    *,
    deadline: float,
    step: str,
    on_report: Callable[[tuple[int, float, float, float]], bool] | None = None,
) -> _Outcome:
    """Stream the benchmark's output into progress until it exits, is cancelled or times out.
    `on_report` sees each report; when it returns True the benchmark is expected to end by
    itself (its server was killed) and is stopped if it has not within the kill grace."""
    output, errors = io.StringIO(), io.StringIO()
    reader = _LineReader(child)
    last_beat = time.monotonic()
    stopped_as = None
    end_by = None
    while True:
        for stream, line in reader.lines(timeout=POLL_SECONDS):
            (output if stream == "stdout" else errors).write(line)
            report = _record_report(run, line, step) if stream == "stdout" else None
            if report and on_report and on_report(report) and end_by is None:
                end_by = time.monotonic() + settings.RERUN_KILL_GRACE_SECONDS
        now = time.monotonic()
        if reader.closed and child.poll() is not None:
            break
        if stopped_as is None and now > deadline:
            stopped_as = RerunStatus.TIMED_OUT
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        elif end_by is not None and now > end_by and child.poll() is None:
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        elif stopped_as is None and now - last_beat >= settings.RERUN_HEARTBEAT_SECONDS:
            last_beat = now
            if _beat_and_check_cancel(run):
                stopped_as = RerunStatus.CANCELLED
                process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
    log = output.getvalue() + errors.getvalue()
    if stopped_as is not None:
        return _stopped(stopped_as, target, log, "the benchmark was stopped")
    if child.returncode != 0:
        last_error = (errors.getvalue().strip().splitlines() or ["no message"])[-1]
        return _Outcome(
            RerunStatus.FAILED, f"The benchmark failed (exit {child.returncode}): {last_error}", log
        )
    return _Outcome(RerunStatus.SUCCEEDED, "", log)


def _stopped(status: str, target: Target, log: str, what: str) -> _Outcome:
    if status == RerunStatus.TIMED_OUT:
        return _Outcome(status, f"Timed out after {target.time_limit:,} s; {what}.", log)
    return _Outcome(status, f"Cancelled by an organizer; {what}.", log)


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


def _record_report(
    run: VerificationRun, line: str, step: str
) -> tuple[int, float, float, float] | None:
    report = parse_report_line(line)
    if report is None:
        return None
    rows, seconds, interval_rate, cumulative_rate = report
    RerunSample.objects.get_or_create(
        run=run,
        step=step,
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
    return report


def _beat_and_check_cancel(run: VerificationRun) -> bool:
    VerificationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    return VerificationRun.objects.filter(pk=run.pk, cancel_requested=True).exists()


# --- crash recovery: a private server, killed and restarted ------------------------------------


def _server_settings(target: Target) -> recovery.ServerSettings:
    return recovery.ServerSettings(
        kind=target.server,
        base_dir=str(settings.RERUN_RECOVERY_DIR),
        mariadbd=settings.RERUN_RECOVERY_MARIADBD,
        mariadb_install_db=settings.RERUN_RECOVERY_MARIADB_INSTALL_DB,
        postgresql_bin_dir=settings.RERUN_RECOVERY_POSTGRESQL_BIN_DIR,
        postgresql_os_user=settings.RERUN_RECOVERY_POSTGRESQL_USER,
    )


class _Journal:
    """The crash-recovery rerun's log: its own `# rerun` lines around the benchmark's output."""

    def __init__(self, run: VerificationRun):
        self.run = run
        self.text = io.StringIO()

    def add(self, text: str) -> None:
        self.text.write(text if text.endswith("\n") else text + "\n")
        VerificationRun.objects.filter(pk=self.run.pk).update(log=self.text.getvalue())

    def outcome(self, status: str, message: str, **kwargs) -> _Outcome:
        return _Outcome(status, message, self.text.getvalue(), **kwargs)


RECOVERY_STEPS = 3


@dataclass
class _Crash:
    """What the SIGKILL left: where the run was and what it knew was committed."""

    rows_at_crash: int
    insert_rate: float
    pids: list[int]
    rows_committed: int = 0


def _execute_recovery(run: VerificationRun, target: Target, spec: workloads.RerunSpec) -> _Outcome:
    crash = workloads.crash_plan(spec.figures, run.rows_target)
    deadline = time.monotonic() + target.time_limit
    config = _server_settings(target)
    journal = _Journal(run)
    for folder in recovery.remove_leftovers(config.base_dir):
        journal.add(f"# rerun removed a private server left by a killed worker: {folder}")
    try:
        with recovery.PrivateServer(config, label=f"r{run.pk}") as server:
            return _crash_and_recover(run, target, spec, crash, server, journal, deadline)
    except recovery.ServerError as error:
        return journal.outcome(RerunStatus.FAILED, str(error))


def _crash_and_recover(
    run: VerificationRun,
    target: Target,
    spec: workloads.RerunSpec,
    crash: workloads.CrashPlan,
    server: recovery.PrivateServer,
    journal: _Journal,
    deadline: float,
) -> _Outcome:
    kind = server.config.kind
    _begin_step(run, "server", 1, RECOVERY_STEPS, f"a private {kind} server starts")
    server.initialize()
    server.start()
    stopped = _wait_until_answering(run, server, deadline, table=False)
    if stopped:
        return _stopped_recovery(stopped, target, journal, server)
    server.create_database()
    journal.add(
        f"# rerun step=server: private {kind} server pid={server.pid} port={server.port} "
        f"dir={server.root}"
    )
    crashed = _insert_until_crash(run, target, spec, crash, server, journal, deadline)
    if isinstance(crashed, _Outcome):
        return crashed
    return _recover(run, target, server, journal, deadline, crashed)


def _insert_until_crash(
    run: VerificationRun,
    target: Target,
    spec: workloads.RerunSpec,
    crash: workloads.CrashPlan,
    server: recovery.PrivateServer,
    journal: _Journal,
    deadline: float,
) -> _Outcome | _Crash:
    """The throttled run; SIGKILL to the server once a report reaches the crash row count.
    Returns what the crash left, or the outcome that ended the rerun before it."""
    _begin_step(
        run, "insert", 2, RECOVERY_STEPS,
        f"inserts at {crash.max_rate:,} rows/s; the server is killed at {crash.crash_at_rows:,} rows",
    )  # fmt: skip
    crashes: list[_Crash] = []

    def crash_when_due(report: tuple[int, float, float, float]) -> bool:
        rows, _, _, cumulative_rate = report
        if crashes or rows < crash.crash_at_rows:
            return False
        crashes.append(_Crash(rows, cumulative_rate, server.crash()))
        return True

    arguments = workloads.crash_insert_arguments(replace(spec.plan, db_url=server.url), crash)
    journal.add(f"# rerun step=insert (2 of {RECOVERY_STEPS}): the benchmark's output")
    try:
        outcome = _watch(
            run, process.start(arguments, cwd=server.root), target,
            deadline=deadline, step="insert", on_report=crash_when_due,
        )  # fmt: skip
    except OSError as error:
        return journal.outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}")
    journal.add(outcome.log)
    if outcome.status in (RerunStatus.CANCELLED, RerunStatus.TIMED_OUT):
        return _stopped_recovery(outcome.status, target, journal, server)
    if not crashes:
        # The benchmark ended before the crash point: its own failure, not the one we caused.
        message = outcome.message or f"The benchmark ended before {crash.crash_at_rows:,} rows."
        return journal.outcome(RerunStatus.FAILED, message)
    crashed = crashes[0]
    pids = " ".join(str(pid) for pid in crashed.pids)
    journal.add(
        f"# rerun crash: SIGKILL to the {server.config.kind} server (pids {pids}) at "
        f"{crashed.rows_at_crash:,} rows; the benchmark lost its connection, as expected"
    )
    crashed.rows_committed = _summary_rows(outcome.log, default=crashed.rows_at_crash)
    return crashed


def _recover(
    run: VerificationRun,
    target: Target,
    server: recovery.PrivateServer,
    journal: _Journal,
    deadline: float,
    crashed: _Crash,
) -> _Outcome:
    _begin_step(
        run, "recovery", 3, RECOVERY_STEPS,
        "the server restarts on the same data; timing until the table answers",
    )  # fmt: skip
    log_before = len(server.log_text(limit=10**9))
    started = time.monotonic()
    server.start()
    stopped = _wait_until_answering(run, server, deadline, table=True)
    if stopped:
        return _stopped_recovery(stopped, target, journal, server)
    seconds = time.monotonic() - started
    rows_found = server.count_rows()
    result = {
        "server": server.config.kind,
        "engine": _engine_of(journal.text.getvalue(), server.config.kind),
        "insert_rate": crashed.insert_rate,
        "rows_at_crash": crashed.rows_at_crash,
        "rows_committed": crashed.rows_committed,
        "rows_found": rows_found,
        "recovery_seconds": seconds,
        "crashed_pids": crashed.pids,
        "restarted_pid": server.pid,
        "summary": f"recovered in {seconds:,.2f} s, {rows_found:,} rows found",
    }
    journal.add(
        f"# rerun step=recovery: restarted pid={server.pid}; the table answered after "
        f"{seconds:.3f} s; {rows_found:,} rows found\n# rerun server log since the restart:\n"
        + server.log_text(limit=10**9)[log_before:][-20_000:]
    )
    return journal.outcome(RerunStatus.SUCCEEDED, "", result=result)


def _wait_until_answering(
    run: VerificationRun, server: recovery.PrivateServer, deadline: float, table: bool
) -> str | None:
    """Polls the server until it answers; returns how the wait was stopped, else None."""
    started = last_beat = time.monotonic()
    while not server.answers(table):
        code = server.exit_code()
        if code is not None:
            tail = " | ".join(server.log_text().strip().splitlines()[-3:])
            raise recovery.ServerError(
                f"The private {server.config.kind} server exited (code {code}) before it "
                f"answered: {tail or 'no message'}"
            )
        now = time.monotonic()
        if now > deadline:
            return RerunStatus.TIMED_OUT
        if now - last_beat >= settings.RERUN_HEARTBEAT_SECONDS:
            last_beat = now
            if _beat_and_check_cancel(run):
                return RerunStatus.CANCELLED
        waited = now - started
        time.sleep(
            min(max(SERVER_POLL_SECONDS, waited * SERVER_POLL_FRACTION), SERVER_POLL_MAX_SECONDS)
        )
    return None


def _stopped_recovery(
    status: str, target: Target, journal: _Journal, server: recovery.PrivateServer
) -> _Outcome:
    # The caller's `with` removes the server on the way out; the message says it will be.
    outcome = _stopped(
        status, target, "", f"the private {server.config.kind} server was stopped and removed"
    )
    return journal.outcome(outcome.status, outcome.message)


_SUMMARY_ROWS = re.compile(r"^# summary .*?\brows=(\d+)", re.MULTILINE)
_ENGINE = re.compile(r"^# param engine=(\S+)", re.MULTILINE)


def _summary_rows(log: str, default: int) -> int:
    """The rows the benchmark knew were committed: its summary, printed even when it fails."""
    found = _SUMMARY_ROWS.search(log)
    return int(found.group(1)) if found else default


def _engine_of(log: str, server_kind: str) -> str:
    if server_kind == "postgresql":
        return "PostgreSQL"
    found = _ENGINE.search(log)
    return found.group(1) if found else "InnoDB"


# --- the verdict --------------------------------------------------------------------------------


def _finish(run: VerificationRun, outcome: _Outcome) -> VerificationRun:
    run.refresh_from_db()
    run.status = outcome.status
    run.message = outcome.message
    run.log = outcome.log
    run.result = outcome.result
    run.finished_at = timezone.now()
    if outcome.status == RerunStatus.SUCCEEDED:
        _judge(run, outcome)
    run.save()
    return run


def _judge(run: VerificationRun, outcome: _Outcome) -> None:
    """Compare the finished rerun with the claim and mark the entry verified if reproduced."""
    judges = {
        workloads.CLASSIC: _judge_classic,
        workloads.FIFO: _judge_fifo,
        workloads.QUERY: _judge_queries,
        workloads.PK_TYPES: _judge_key_types,
        workloads.BULK_LOAD: _judge_bulk_load,
        workloads.CRASH_RECOVERY: _judge_recovery,
    }
    submission = run.submission
    try:
        comparison = judges[submission.contest.workload](run, outcome)
    except LogError as error:
        run.status = RerunStatus.FAILED
        run.message = f"The rerun's output could not be read: {error}"
        return
    except workloads.NotPlannable as error:
        # The entry's figures changed while the rerun ran (the registry re-checked it).
        run.status = RerunStatus.FAILED
        run.message = f"The rerun cannot be compared: {error}"
        return
    run.verdict, run.ratio, run.message = comparison.verdict, comparison.ratio, comparison.message
    if comparison.verdict == REPRODUCED:
        Submission.objects.filter(pk=submission.pk).update(verified=True)
        contest_board_changed(contest_id=submission.contest_id)


def _parse(log: str) -> ParsedLog:
    return parse_log(io.BytesIO(log.encode()))


def _progress_from(run: VerificationRun, parsed: ParsedLog) -> None:
    rows, seconds = measure.rows_and_seconds(parsed)
    run.rows_done = int(rows[-1]) if len(rows) else 0
    run.rate = run.rows_done / float(seconds[-1]) if len(rows) and seconds[-1] > 0 else None


def _judge_classic(run: VerificationRun, outcome: _Outcome) -> Comparison:
    parsed = _parse(outcome.step_logs["insert"])
    _progress_from(run, parsed)
    rerun_rows, rerun_seconds = measure.rows_and_seconds(parsed)
    submission = run.submission
    claimed = unpack_columns(submission.series.columns)
    return compare_runs(
        claimed["rows"],
        claimed["seconds"],
        rerun_rows,
        rerun_seconds,
        submission.contest.rerun_tolerance,
    )


def _judge_fifo(run: VerificationRun, outcome: _Outcome) -> Comparison:
    parsed = _parse(outcome.step_logs["fifo"])
    _progress_from(run, parsed)
    submission = run.submission
    scale = workloads.fifo_scale(
        submission.track_figures, _claimed_rows(submission), run.rows_target
    )
    run.result = measure.fifo_figures(parsed, scale)
    return compare_fifo(
        claimed=submission.track_figures,
        scale=scale,
        rerun_terminal_rate=run.result["terminal_insert_rate"],
        rerun_deletes_start=run.result["deletes_start_row"],
        tolerance=submission.contest.rerun_tolerance,
    )


def _judge_queries(run: VerificationRun, outcome: _Outcome) -> Comparison:
    parsed = _parse(outcome.step_logs["queries"])
    _progress_from(run, parsed)
    run.result = measure.query_figures(parsed)
    return compare_queries(
        claimed=run.submission.track_figures,
        rerun_points=run.result["points"],
        tolerance=run.submission.contest.rerun_tolerance,
    )


def _judge_key_types(run: VerificationRun, outcome: _Outcome) -> Comparison:
    runs = {}
    for kind in workloads.KEY_TYPES:
        parsed = _parse(outcome.step_logs[kind])
        runs[kind] = measure.key_type_run(parsed)
        _progress_from(run, parsed)
    target = target_named(run.target)
    run.result = measure.key_type_figures(runs, target.writers, target.readers)
    return compare_key_types(
        claimed=run.submission.track_figures,
        rerun_ratios=run.result["ratios"],
        tolerance=run.submission.contest.rerun_tolerance,
        rerun_runs=runs,
    )


def _judge_bulk_load(run: VerificationRun, outcome: _Outcome) -> Comparison:
    figures = measure.load_figures(_parse(outcome.step_logs["load"]))
    if figures is None:
        raise LogError("the load printed no `# summary ... mode=load` line")
    run.rows_done, run.rate = figures.rows, figures.rows_per_s
    run.result = measure.load_result(figures)
    return compare_bulk_load(
        claimed=run.submission.track_figures,
        rerun=figures,
        tolerance=run.submission.contest.rerun_tolerance,
    )


def _judge_recovery(run: VerificationRun, outcome: _Outcome) -> Comparison:
    result = outcome.result
    run.rows_done = result["rows_at_crash"]
    run.rate = result["insert_rate"]
    figures = RecoveryFigures(
        engine=result["engine"],
        insert_rate=result["insert_rate"],
        rows_at_crash=result["rows_at_crash"],
        rows_committed=result["rows_committed"],
        rows_found=result["rows_found"],
        recovery_seconds=result["recovery_seconds"],
    )
    return compare_recovery(
        claimed=run.submission.track_figures,
        rerun=figures,
        tolerance=run.submission.contest.rerun_tolerance,
    )


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
