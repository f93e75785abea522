"""Running one benchmark process for a rerun: its report lines become live progress (samples,
rows, rate, heartbeat) while the worker watches the clock and the cancel flag."""

from __future__ import annotations

import io
import os
import selectors
import subprocess  # only for the Popen type; process.py starts the benchmark  # nosec B404
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runner import process
from runner.models import RerunSample, RerunStatus, VerificationRun
from submissions.logparse.c_format import COLUMNS, COST_COLUMNS

# How often the worker looks at the clock and the cancel flag while the benchmark runs.
POLL_SECONDS = 0.5


@dataclass(frozen=True)
class Outcome:
    status: str
    message: str
    log: str
    # Each step's own output, for the judge (the stored log joins them).
    step_logs: dict[str, str] = field(default_factory=dict)
    result: dict = field(default_factory=dict)
    # Every repeat's step logs, in order (step_logs is the first's).
    repeat_logs: list[dict[str, str]] = field(default_factory=list)


def begin_step(
    run: VerificationRun,
    name: str,
    index: int,
    count: int,
    description: str,
    *,
    repeat: tuple[int, int] = (1, 1),
) -> None:
    changes = {"step": name, "rows_done": 0, "rate": None, "heartbeat_at": timezone.now()}
    each_run = f"Run {repeat[0]} of {repeat[1]}" if repeat[1] > 1 else ""
    if count > 1:
        each_run = f"{each_run}, step" if each_run else "Step"
        changes["message"] = f"{each_run} {index} of {count}: {description}."
    elif each_run:
        changes["message"] = f"{each_run}: {description}."
    VerificationRun.objects.filter(pk=run.pk).update(**changes)


def watch(run: VerificationRun, child: subprocess.Popen, **options) -> Outcome:
    """`_watch` (below); an error of the worker's own (its database refusing a write) stops
    the benchmark before it goes up: no benchmark runs on with no one reading it."""
    try:
        return _watch(run, child, **options)
    except Exception:
        process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        raise


def _watch(
    run: VerificationRun,
    child: subprocess.Popen,
    *,
    time_limit: int,
    deadline: float,
    step: str,
    on_report: Callable[[tuple[int, float, float, float]], bool] | None = None,
    log_prefix: str | None = None,
    on_exit: Callable[[int], None] | None = None,
) -> Outcome:
    """Stream the benchmark's output into progress until it exits, is cancelled or times out.
    `on_exit` is given the benchmark's pid once it has exited and before it is reaped, while
    /proc still holds what its threads did (their waits for a CPU).
    `on_report` sees each report; when it returns True the benchmark is expected to end by
    itself (its server was killed) and is stopped if it has not within the kill grace.
    With `log_prefix`, the run's log is saved with each report (prefix + output so far):
    what a rerun whose worker dies is resumed from."""
    output, errors = io.StringIO(), io.StringIO()
    reader = LineReader(child)
    last_beat = time.monotonic()
    stopped_as = None
    end_by = None
    while True:
        for stream, line in reader.lines(timeout=POLL_SECONDS):
            (output if stream == "stdout" else errors).write(line)
            report = parse_report_line(line) if stream == "stdout" else None
            if report:
                # A report's sample and the log holding its line are saved together: a worker
                # killed between the two writes would leave a sample the log a resumed run
                # continues does not have (about a hundred reports a run, each saving the log).
                with transaction.atomic():
                    record_report(run, report, step)
                    if log_prefix is not None:
                        VerificationRun.objects.filter(pk=run.pk).update(
                            log=log_prefix + output.getvalue()
                        )
            if report and on_report and on_report(report) and end_by is None:
                end_by = time.monotonic() + settings.RERUN_KILL_GRACE_SECONDS
        now = time.monotonic()
        if reader.closed and on_exit is not None and exited_unreaped(child):
            on_exit(child.pid)
            on_exit = None
        if reader.closed and child.poll() is not None:
            break
        if stopped_as is None and now > deadline:
            stopped_as = RerunStatus.TIMED_OUT
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        elif end_by is not None and now > end_by and child.poll() is None:
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        elif stopped_as is None and now - last_beat >= settings.RERUN_HEARTBEAT_SECONDS:
            last_beat = now
            if beat_and_check_cancel(run):
                stopped_as = RerunStatus.CANCELLED
                process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
    log = output.getvalue() + errors.getvalue()
    if stopped_as is not None:
        return stopped_outcome(stopped_as, time_limit, log, "the benchmark was stopped")
    if child.returncode != 0:
        last_error = (errors.getvalue().strip().splitlines() or ["no message"])[-1]
        return Outcome(
            RerunStatus.FAILED, f"The benchmark failed (exit {child.returncode}): {last_error}", log
        )
    return Outcome(RerunStatus.SUCCEEDED, "", log)


def exited_unreaped(child: subprocess.Popen) -> bool:
    """The child has exited and is not reaped yet (its /proc entry still readable)."""
    if child.returncode is not None:
        return False
    try:
        return os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None
    except ChildProcessError:
        return False


def stopped_outcome(status: str, time_limit: int, log: str, what: str) -> Outcome:
    if status == RerunStatus.TIMED_OUT:
        return Outcome(status, f"Timed out after {time_limit:,} s; {what}.", log)
    return Outcome(status, f"Cancelled by an organizer; {what}.", log)


class LineReader:
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


# Where the report columns stand: the layout the registry's parser reads (FORMAT.md). The run's
# whole log is parsed by it at the end; this reads one line at a time for the live curve.
_ROWS, _SECONDS, _INTERVAL, _CUMULATIVE = (
    COLUMNS.index(name) for name in ("rows", "seconds", "interval_ips", "cumulative_ips")
)


def parse_report_line(line: str) -> tuple[int, float, float, float] | None:
    """rows, seconds, interval rate, cumulative rate of a C-benchmark report line, else None."""
    fields = line.split("\t")
    # Format 1 has the eight columns, format 2 the cost columns after them.
    if len(fields) not in (len(COLUMNS), len(COLUMNS) + len(COST_COLUMNS)):
        return None
    if not fields[_ROWS].isdigit():
        return None
    try:
        return (
            int(fields[_ROWS]),
            float(fields[_SECONDS]),
            float(fields[_INTERVAL]),
            float(fields[_CUMULATIVE]),
        )
    except ValueError:
        return None


def record_report(run: VerificationRun, report: tuple[int, float, float, float], step: str) -> None:
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


def beat_and_check_cancel(run: VerificationRun) -> bool:
    VerificationRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now())
    return VerificationRun.objects.filter(pk=run.pk, cancel_requested=True).exists()
