"""Calibrating a verification host: when its queue is idle, the worker reruns a reference claim
several times on a private server, as a verification reruns a claim (the claim's settings with
memory scaled 1/k, the same command line, a fresh database each repeat), and keeps the spread of
every figure the classic judge compares (runner/judge/calibration_spreads.py). A verdict
then draws its bands with its host's fresh calibration (`spreads_for_run`), not the project's
fixtures; a host whose calibration is stale, or missing, says `inconclusive` (unless
RERUN_FIXTURE_SPREADS lets the fixtures stand in, as in the tests).

Bounded: a reference's runs are short (the 1/10 band: five runs of 300,000 rows, about 40 s
each here) under RERUN_CALIBRATION_TIME_LIMIT, and a stale or missing calibration is started
only when no rerun is queued or running on the target (`calibrations_send`, from the sweep).
"""

from __future__ import annotations

import logging
import math
import os
import socket
import statistics
import subprocess  # only for TimeoutExpired; process.py starts the benchmark  # nosec B404
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runner import process, servers
from runner.fleet import host_queue
from runner.heartbeats import served_queues
from runner.host import busy_cores, host_name, host_of, read_cpu_times, steal_cores
from runner.judge.calibration_spreads import (
    Calibration,
    NotCalibrated,
    calibration_spreads,
    refutable_factor,
    run_figures,
    spreads_for_judge,
)
from runner.judge.classic import FIXTURE_SPREADS, STEP, steps
from runner.judge.host_speed import DRIFT_LIMIT, HostSpeed
from runner.judge.rerun import (
    STEAL_CORES,
    RerunSpec,
    RunPlan,
    column,
    curve,
    other_work,
    read_output,
    steal_line,
)
from runner.judge.resolution import DEFAULT_REPEATS, HostSpread, HostSpreads
from runner.judge.scaling import memory_for_scale, scaled_rows
from runner.models import (
    CalibrationStatus,
    HostCalibration,
    RerunStatus,
    VerificationRun,
    WorkerBeat,
)
from runner.reference_runs import ReferenceServer, reference_settings
from runner.targets import Target, rerun_targets
from submissions.logparse import LogError
from submissions.logparse.c_format import header_settings
from submissions.setup.server_settings import size_in_bytes

CALIBRATE_HOST = "runner.tasks.calibrate_host"
DEMO_LOGS = Path(__file__).resolve().parents[1] / "submissions" / "demo_logs"
# A verification is judged with the calibration whose runs' rows are within this factor of its
# own (the nearest): the spread of a 20,000-row run says little of a 300,000-row one.
BAND_FACTOR = 3.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reference:
    """A reference claim calibrated at one scale band: its InnoDB settings and rows, rerun at
    1/scale like a verification of it."""

    name: str
    claim: str  # for people: "the demo claim"
    claimed_rows: int
    scale: int
    declared: dict[str, str]
    log: Path | None = None  # the claim's own log, whose header names its server's settings
    family: str = "mysql"  # the server family it runs on (an InnoDB claim: MySQL/MariaDB)

    @property
    def rows(self) -> int:
        return scaled_rows(self.claimed_rows, self.scale)

    @property
    def label(self) -> str:
        """For people, in a verdict: "1/10 of the demo claim (300,000 rows on a pool of 14 MB)", the
        pool as the scaling rule gives it (not the claim's divided by k)."""
        scaled = memory_for_scale(self.declared, family=self.family, scale=self.scale, memory_gb=0)
        key = "innodb_buffer_pool_size"
        pool = scaled.settings.get(key)
        size = (
            f" on a pool of {size_in_bytes(pool, family=self.family, key=key) / (1 << 20):g} MB"
            if pool
            else ""
        )
        return f"1/{self.scale} of {self.claim} ({self.rows:,} rows{size})"


REFERENCES = {
    reference.name: reference
    for reference in (
        # The demo's real log (a 128 MB pool, 3,000,000 rows): the 1/10 band, 300,000 rows a run,
        # where the demo's verification runs.
        Reference(
            "demo-tenth",
            "the demo claim",
            3_000_000,
            10,
            {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "2"},
            DEMO_LOGS / "c-small-pool-mariadb-3m.log",
        ),
        # A small band for tests (seconds a run): 20,000 rows on a pool scaled 1/10 from 64 MB.
        Reference(
            "small",
            "a small claim",
            200_000,
            10,
            {"innodb_buffer_pool_size": "64M", "innodb_flush_log_at_trx_commit": "2"},
        ),
    )
}


class CalibrationRefused(Exception):
    """The calibration cannot be started as asked (the message says why)."""


def reference_for(scale: int | None = None, name: str | None = None) -> Reference:
    if name is not None:
        if name not in REFERENCES:
            raise CalibrationRefused(
                f"No reference setup '{name}': the references are {', '.join(REFERENCES)}."
            )
        return REFERENCES[name]
    found = [each for each in REFERENCES.values() if each.scale == scale]
    if not found:
        scales = ", ".join(sorted({f"1/{each.scale}" for each in REFERENCES.values()}))
        raise CalibrationRefused(f"No reference setup at 1/{scale}: the bands are {scales}.")
    return found[0]


def calibration_target(name: str) -> Target:
    targets = rerun_targets()
    target = targets.get(name)
    if target is None or not target.server or target.procedure != "steps":
        able = ", ".join(
            sorted(n for n, t in targets.items() if t.server and t.procedure == "steps")
        )
        raise CalibrationRefused(
            f"The {name} target cannot be calibrated: only a target whose worker starts its own "
            f"server for a verification can ({able or 'none is configured'})."
        )
    return target


def this_host_name() -> str:
    """This machine, as host_of() names the host of a run its worker ran (celery@HOST)."""
    return socket.gethostname()


# --- which spreads a verdict uses ---------------------------------------------------------------


def calibration_of(*, host: str, target: str, rows: int) -> HostCalibration | None:
    """The host's latest finished calibration on the target for runs of about `rows` rows (the
    nearest band within BAND_FACTOR)."""
    done = HostCalibration.objects.filter(
        host=host, target=target, status=CalibrationStatus.DONE, stale=""
    )
    near = [
        each
        for each in done.order_by("-measured_at")
        if each.rows and abs(math.log(each.rows / max(rows, 1))) <= math.log(BAND_FACTOR)
    ]
    if not near:
        return None
    return min(near, key=lambda each: abs(math.log(each.rows / max(rows, 1))))


def as_calibration(row: HostCalibration) -> Calibration:
    label = REFERENCES[row.reference].label if row.reference in REFERENCES else row.reference
    return Calibration(
        spreads={
            figure: HostSpread(float(each["sigma"]), int(each["dof"]))
            for figure, each in row.spreads.items()
        },
        runs=row.runs,
        measured_at=row.measured_at or row.started_at,
        reference=label,
    )


def spreads_for_run(run: VerificationRun, *, now: datetime | None = None) -> HostSpreads:
    """The spreads the run's verdict is drawn with: its host's calibration fresh when the run
    ran (RERUN_CALIBRATION_MAX_AGE_DAYS), else the fixtures where RERUN_FIXTURE_SPREADS is on,
    else none, and why (the verdict is then inconclusive)."""
    host = host_of(run)
    found = calibration_of(host=host, target=run.target, rows=run.rows_target)
    failed = (
        HostCalibration.objects.filter(
            host=host, target=run.target, status=CalibrationStatus.FAILED
        )
        .order_by("-started_at")
        .first()
    )
    return spreads_for_judge(
        None if found is None else as_calibration(found),
        now=run.started_at or now or timezone.now(),
        max_age_days=settings.RERUN_CALIBRATION_MAX_AGE_DAYS,
        fixtures=FIXTURE_SPREADS,
        fixtures_allowed=settings.RERUN_FIXTURE_SPREADS,
        host=host,
        last_failure="" if failed is None else failed.message,
    )


# --- the procedure ------------------------------------------------------------------------------


def host_calibrate(
    *,
    target: str,
    reference: Reference,
    repeats: int,
    host: str | None = None,
    only_if_due: bool = False,
) -> HostCalibration | None:
    """Rerun `reference` `repeats` times on a private server of `target` and store the spread
    of every figure. A run beside other work (RERUN_CALIBRATION_BUSY_CORES, steal counted) fails
    the calibration: a busy host's spread is not the host's. `only_if_due` (the sweep's task):
    None when the host's calibration is fresh or another is running."""
    chosen = calibration_target(target)
    if chosen.family != reference.family:
        raise CalibrationRefused(
            f"The {reference.name} reference is a {reference.family} claim; the {chosen.name} "
            f"target runs {chosen.family}."
        )
    if not 2 <= repeats <= settings.RERUN_CALIBRATION_MAX_REPEATS:
        raise CalibrationRefused(
            f"Between 2 and {settings.RERUN_CALIBRATION_MAX_REPEATS} repeats: a spread needs "
            "two runs at least."
        )
    calibration = _calibration_take(
        host=host or this_host_name(), target=chosen, reference=reference, only_if_due=only_if_due
    )
    if calibration is None:
        return None
    try:
        quiet_before_calibrating(
            seconds=settings.RERUN_CALIBRATION_PRECHECK_SECONDS,
            busy_limit=settings.RERUN_CALIBRATION_BUSY_CORES,
        )
        measured = reference_measure(
            target=chosen,
            reference=reference,
            repeats=repeats,
            label=f"cal{calibration.pk}",
            busy_limit=settings.RERUN_CALIBRATION_BUSY_CORES,
        )
        _store(calibration, measured)
    except (servers.ServerError, NotCalibrated, LogError, CalibrationStopped) as error:
        calibration.status = CalibrationStatus.FAILED
        calibration.message = str(error)
    except Exception as error:  # any other error ends it, said as it is
        logger.exception("The calibration of %s stopped on an error", calibration.host)
        calibration.status = CalibrationStatus.FAILED
        calibration.message = (
            f"The calibration stopped on an error: {type(error).__name__}: {error}"
        )
    if calibration.status == CalibrationStatus.FAILED:
        calibration.message += next_try_sentence(calibration)
    calibration.save()
    return calibration


def quiet_before_calibrating(*, seconds: float, busy_limit: float) -> None:
    """Raise CalibrationStopped when the machine was already busy over `seconds` before the
    first run (nothing of the calibration's runs then: all of it is other work, steal counted).
    A busy host then fails in seconds, not after every repeat, so it can be asked again soon."""
    if seconds <= 0:
        return
    before = read_cpu_times()
    time.sleep(seconds)
    busy = busy_cores(before, read_cpu_times(), cores=os.cpu_count() or 1)
    if busy is not None and busy >= busy_limit:
        raise CalibrationStopped(
            f"The host was busy before the calibration started: other work kept {busy:.2f} of "
            f"its cores busy over {seconds:g} s (steal time counted; the limit is "
            f"{busy_limit:g}), so no run was started."
        )


def retry_wait(failures: int, *, first: float, longest: float) -> float:
    """Seconds to wait after `failures` failed calibrations in a row: `first`, doubled at each
    further failure, at most `longest`. A host busy for a moment calibrates minutes later; one
    busy for hours is asked every `longest`, not at every sweep."""
    if failures <= 0:
        return 0.0
    return min(longest, first * 2 ** min(failures - 1, 30))


def failures_in_a_row(host: str, target: str, reference: str) -> int:
    """The failed calibrations since the last one that measured (at most 30 are read)."""
    mine = HostCalibration.objects.filter(host=host, target=target, reference=reference)
    ended = mine.filter(status__in=(CalibrationStatus.DONE, CalibrationStatus.FAILED))
    statuses = ended.order_by("-started_at").values_list("status", flat=True)[:30]
    count = 0
    for status in statuses:
        if status != CalibrationStatus.FAILED:
            break
        count += 1
    return count


def _retry_wait(failures: int) -> float:
    return retry_wait(
        failures,
        first=settings.RERUN_CALIBRATION_RETRY_MIN_SECONDS,
        longest=settings.RERUN_CALIBRATION_RETRY_SECONDS,
    )


def next_try_sentence(calibration: HostCalibration) -> str:
    """When the sweep sends the next calibration, said on the failed one (it is not saved yet,
    so it counts itself)."""
    failures = 1 + failures_in_a_row(calibration.host, calibration.target, calibration.reference)
    wait = _retry_wait(failures)
    ordinal = "1 failure" if failures == 1 else f"{failures} failures in a row"
    return f" Tried again in {_duration_words(wait)} at the earliest, when its queue is idle ({ordinal})."


def _duration_words(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"


def _calibration_take(
    *, host: str, target: Target, reference: Reference, only_if_due: bool
) -> HostCalibration | None:
    """The row this calibration writes: the one the sweep queued for this host (claimed with a
    conditional UPDATE, so two deliveries run once), else a new one."""
    now = timezone.now()
    mine = HostCalibration.objects.filter(host=host, target=target.name, reference=reference.name)
    queued = mine.filter(status=CalibrationStatus.QUEUED).order_by("-started_at").first()
    if queued is not None and mine.filter(pk=queued.pk, status=CalibrationStatus.QUEUED).update(
        status=CalibrationStatus.RUNNING, started_at=now
    ):
        queued.refresh_from_db()
        return queued
    if only_if_due and not calibration_due(
        host=host, target=target.name, reference=reference, now=now
    ):
        return None
    return HostCalibration.objects.create(
        host=host,
        target=target.name,
        reference=reference.name,
        scale=reference.scale,
        rows=reference.rows,
        status=CalibrationStatus.RUNNING,
        started_at=now,
    )


class CalibrationStopped(Exception):
    """A calibration run failed, timed out or ran beside other work (the message says which)."""


@dataclass(frozen=True)
class Measured:
    """What N runs of a reference measured on this host: the spread of each figure, each run's
    figures, the most other work and steal beside a run (cores), and the runs' output."""

    spreads: dict[str, HostSpread]
    figures: list[dict[str, float]]
    other_work: float | None
    steal: float | None
    log: str
    reference_rates: tuple[float, ...] = ()  # the fixed reference's, beside the runs


def reference_measure(
    *, target: Target, reference: Reference, repeats: int, label: str, busy_limit: float
) -> Measured:
    """Run the reference `repeats` times on a private server of `target` (no database write:
    `bench/calibration_table.py` runs it too). Raises ServerError, NotCalibrated, LogError or
    CalibrationStopped (a run failed, timed out, or ran beside `busy_limit` cores of other work)."""
    work_dir = Path(settings.RERUN_WORK_DIR)
    work_dir.mkdir(parents=True, exist_ok=True)
    config = servers.server_config(target.server)
    asked = _settings(target, reference, config)
    deadline = time.monotonic() + settings.RERUN_CALIBRATION_TIME_LIMIT
    outputs = []
    log = f"# calibration: {reference.label}\n" + "".join(
        f"# rerun setting {key}={value}\n" for key, value in asked.applied.items()
    )
    with (
        servers.PrivateServer(
            config, label=label, settings=asked.applied, memory_limit=asked.memory_limit
        ) as server,
        ReferenceServer(target, f"{label}r", deadline=deadline) as beside,
    ):
        server.initialize()
        server.start()
        if server.wait_until_answering(deadline=deadline) is not None:
            raise CalibrationStopped(
                "The private server did not answer within the calibration's time limit."
            )
        plan = RunPlan(
            binary=str(settings.IIBENCH_BINARY),
            db_url=server.url,
            rows=reference.rows,
            rows_per_commit=1_000,
            rows_per_insert=1_000,
            seed=1,
            engine="InnoDB",
        )
        spec = RerunSpec(plan=plan, figures={}, claimed_rows=reference.claimed_rows)
        for repeat in range(1, repeats + 1):
            beside.measure()
            server.create_database(fresh=True)
            arguments = steps(spec)[0].arguments
            text = _one_run(arguments, work_dir, deadline, repeat, server.client_environment())
            log += f"# rerun repeat={repeat} of {repeats}\n{text}"
            outputs.append(read_output({STEP: text}, spec=spec, rows_target=reference.rows))
        beside.measure()
    log += "".join(beside.runs.lines)
    measured = _measured(outputs, log, busy_limit)
    return replace(measured, reference_rates=tuple(beside.runs.rates))


def _settings(target: Target, reference: Reference, config: servers.ServerConfig):
    logged = None
    if reference.log is not None:
        with reference.log.open() as lines:
            logged = {name: each.value for name, each in header_settings(lines).items()}
    return reference_settings(target, config, reference.declared, reference.scale, logged=logged)


def _one_run(
    arguments: list[str],
    work_dir: Path,
    deadline: float,
    repeat: int,
    environment: dict[str, str],
) -> str:
    before = read_cpu_times()
    child = process.start(arguments, cwd=str(work_dir), env=environment)
    try:
        output, errors = child.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        raise CalibrationStopped(
            f"Run {repeat} did not finish within the calibration's time limit "
            f"({settings.RERUN_CALIBRATION_TIME_LIMIT} s)."
        ) from None
    except BaseException:  # Celery's time limit, a signal: no benchmark runs on unwatched
        process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
        raise
    if child.returncode != 0:
        last = (errors.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        raise CalibrationStopped(f"Run {repeat} failed (exit {child.returncode}): {last}")
    text = output.decode(errors="replace")
    stolen = steal_cores(before, read_cpu_times(), cores=os.cpu_count() or 1)
    return text + (steal_line(stolen) if stolen is not None else "")


def _measured(outputs: list, log: str, busy_limit: float) -> Measured:
    parsed = [each.logs[STEP] for each in outputs]
    steal = [out.result.get(STEAL_CORES) for out in outputs]
    busy = [other_work(each, stolen) for each, stolen in zip(parsed, steal, strict=True)]
    most_busy = max((b for b in busy if b is not None), default=None)
    if most_busy is not None and most_busy >= busy_limit:
        raise CalibrationStopped(
            f"The host was busy: other work kept {most_busy:.2f} of its cores busy beside a run "
            f"(steal time counted; the limit is {busy_limit:g}), so the spread would be the "
            "load's, not the host's. It is calibrated again when its queue is idle."
        )
    runs = [
        (*curve(each), column(each.series.read_ops), column(each.series.server_cpu_s))
        for each in parsed
    ]
    return Measured(
        spreads=calibration_spreads(runs),
        figures=[run_figures(run) for run in runs],
        other_work=most_busy,
        steal=max((s for s in steal if s is not None), default=None),
        log=log,
    )


def _store(calibration: HostCalibration, measured: Measured) -> None:
    calibration.log = measured.log
    calibration.other_work = measured.other_work
    calibration.steal = measured.steal
    calibration.spreads = {
        figure: {"sigma": round(each.sigma, 6), "dof": each.dof}
        for figure, each in measured.spreads.items()
    }
    calibration.figures = measured.figures
    calibration.runs = len(measured.figures)
    rates = measured.reference_rates
    calibration.reference_rate = float(statistics.median(rates)) if rates else None
    calibration.status = CalibrationStatus.DONE
    calibration.measured_at = timezone.now()
    factor = refutable_factor(dict(measured.spreads))
    could = (
        ""
        if factor is None
        else f"; with {DEFAULT_REPEATS} reruns it could refute a claim {factor:.2f}x too fast"
    )
    quiet = (
        ""
        if calibration.reference_rate is None
        else f"; the reference workload beside them ran {calibration.reference_rate:,.0f} rows/s"
    )
    calibration.message = (
        f"{calibration.runs} runs of {REFERENCES[calibration.reference].label}; other work "
        f"beside them at most {measured.other_work or 0:.2f} cores (steal time counted){could}"
        f"{quiet}."
    )


# --- when a host calibrates ---------------------------------------------------------------------


def calibration_due(*, host: str, target: str, reference: Reference, now: datetime) -> bool:
    """Missing or older than RERUN_CALIBRATION_MAX_AGE_DAYS, none queued or running (one
    started longer ago than its time limit is taken for dead, and left as it is), and none
    failed within the wait after its failures in a row (`retry_wait`: RETRY_MIN_SECONDS doubled
    at each, at most RETRY_SECONDS)."""
    mine = HostCalibration.objects.filter(host=host, target=target, reference=reference.name)
    since = now - timedelta(seconds=settings.RERUN_CALIBRATION_TIME_LIMIT * 1.2)
    pending = (CalibrationStatus.QUEUED, CalibrationStatus.RUNNING)
    if mine.filter(status__in=pending, started_at__gte=since).exists():
        return False
    # A host too busy to calibrate is not asked again at every sweep (it would spend its worker
    # calibrating while it stays busy), but sooner than the longest wait after one failure.
    failures = failures_in_a_row(host, target, reference.name)
    if failures:
        retry = now - timedelta(seconds=_retry_wait(failures))
        if mine.filter(status=CalibrationStatus.FAILED, started_at__gte=retry).exists():
            return False
    fresh = now - timedelta(days=settings.RERUN_CALIBRATION_MAX_AGE_DAYS)
    return not mine.filter(status=CalibrationStatus.DONE, measured_at__gte=fresh, stale="").exists()


# --- the host's quiet speed, and when it moved ---------------------------------------------------


def quiet_reference(*, host: str, target: str, now: datetime) -> HostCalibration | None:
    """The host's latest calibration on `target` that measured the reference workload's quiet
    rate, fresh (RERUN_CALIBRATION_MAX_AGE_DAYS) and not stale: any band, for the reference
    is the same workload in every one."""
    fresh = now - timedelta(days=settings.RERUN_CALIBRATION_MAX_AGE_DAYS)
    return (
        HostCalibration.objects.filter(
            host=host,
            target=target,
            status=CalibrationStatus.DONE,
            stale="",
            reference_rate__isnull=False,
            measured_at__gte=fresh,
        )
        .order_by("-measured_at")
        .first()
    )


def host_speed_for_run(run: VerificationRun, *, now: datetime | None = None) -> HostSpeed | None:
    """The reference runs the run kept (runner/verification.py) with its host's quiet rate;
    None for a run that ran none."""
    kept = (run.host or {}).get("reference") if isinstance(run.host, dict) else None
    if not isinstance(kept, dict):
        return None
    quiet = quiet_reference(
        host=host_of(run), target=run.target, now=run.started_at or now or timezone.now()
    )
    return HostSpeed(
        during=tuple(float(each) for each in kept.get("rates", [])),
        quiet=None if quiet is None else quiet.reference_rate,
        quiet_source="" if quiet is None else f"its calibration of {_day(quiet.measured_at)}",
        reference=str(kept.get("label", "")),
    )


def calibration_drift(run: VerificationRun, speed: HostSpeed, *, quiet_host: bool) -> str:
    """Mark the host's calibration stale when, on a quiet host, this job's references ran more
    than DRIFT_LIMIT off its quiet rate: its spreads and rate no longer describe the host, and
    the sweep calibrates it again. Returns the reason, or ""."""
    drift = speed.drift()
    if not quiet_host or drift is None or abs(drift) <= DRIFT_LIMIT:
        return ""
    reason = (
        f"The host's reference speed moved {drift:+.0%} (this host ran the reference workload at "
        f"{statistics.median(speed.during):,.0f} rows/s beside verification {run.pk}, quiet, "
        f"against {speed.quiet:,.0f} when calibrated): calibrated again when its queue is idle."
    )
    HostCalibration.objects.filter(
        host=host_of(run), target=run.target, status=CalibrationStatus.DONE, stale=""
    ).update(stale=reason)
    return reason


def _day(moment: datetime | None) -> str:
    return "an unknown day" if moment is None else f"{moment:%-d %b %Y}"


def queue_idle(target: Target) -> bool:
    return not VerificationRun.objects.filter(
        target=target.name, status__in=(RerunStatus.QUEUED, RerunStatus.RUNNING)
    ).exists()


def calibrations_send(*, now: datetime | None = None) -> int:
    """From the sweep: for each target a worker serves whose queue is idle, send the
    calibration of each band RERUN_CALIBRATION_REFERENCES names to its queue when a host
    serving it has none fresh. The worker that takes it checks its own host again."""
    if not settings.RERUN_CALIBRATE_WHEN_IDLE:
        return 0
    now = now or timezone.now()
    since = now - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS)
    served = served_queues(now)  # read once a sweep: the queues some live worker consumes
    sent = 0
    for target in rerun_targets().values():
        if not target.server or target.procedure != "steps" or not queue_idle(target):
            continue
        workers = WorkerBeat.objects.filter(queue=target.queue, beat_at__gte=since)
        hosts = {host_name(beat.worker) for beat in workers}
        for name in settings.RERUN_CALIBRATION_REFERENCES:
            reference = REFERENCES[name]
            if reference.family != target.family:
                continue
            due = [
                host
                for host in sorted(hosts)
                if calibration_due(host=host, target=target.name, reference=reference, now=now)
            ]
            for host in due:
                # Each host's own queue (runner/fleet.py) where its worker serves one, so every
                # host calibrates itself; else the target's queue, whoever takes it.
                queue = host_queue(target.queue, host)
                if not _send(target, reference, queue if queue in served else target.queue):
                    continue
                # Queued for the host: the sweep does not send it again meanwhile.
                HostCalibration.objects.create(
                    host=host, target=target.name, reference=reference.name,
                    scale=reference.scale, rows=reference.rows,
                    status=CalibrationStatus.QUEUED, started_at=now,
                    message="Queued: the host's queue is idle and its calibration is due.",
                )  # fmt: skip
                sent += 1
    return sent


def reference_near(target: Target, rows: int) -> Reference:
    """The reference band whose runs are nearest `rows` (within BAND_FACTOR), on the target's
    server family: the band a verdict of a run of `rows` rows is drawn with (calibration_of)."""
    near = [
        each
        for each in REFERENCES.values()
        if each.family == target.family
        and abs(math.log(each.rows / max(rows, 1))) <= math.log(BAND_FACTOR)
    ]
    if not near:
        bands = ", ".join(f"{each.name} ({each.rows:,} rows)" for each in REFERENCES.values())
        raise CalibrationRefused(
            f"No reference band is near runs of {rows:,} rows on {target.name}: the bands are "
            f"{bands}."
        )
    return min(near, key=lambda each: abs(math.log(each.rows / max(rows, 1))))


def calibration_request(*, run: VerificationRun) -> HostCalibration:
    """An organizer's calibration of the host that ran `run`, in the run's band: sent to that
    host's own queue (its target's where it serves none), where a worker takes one task at a
    time, so it runs after the reruns already queued there and never beside one. Its row is
    queued at once (the page says so); one already queued or running is answered instead."""
    target = calibration_target(run.target)
    reference = reference_near(target, run.rows_target)
    host = host_name(run.worker) if run.worker else run.target
    pending = HostCalibration.objects.filter(
        host=host,
        target=target.name,
        reference=reference.name,
        status__in=(CalibrationStatus.QUEUED, CalibrationStatus.RUNNING),
    ).first()
    if pending is not None:
        return pending
    own = host_queue(target.queue, host)
    queue = own if own in served_queues() else target.queue
    calibration = HostCalibration.objects.create(
        host=host, target=target.name, reference=reference.name, scale=reference.scale,
        rows=reference.rows, status=CalibrationStatus.QUEUED,
        message=f"Queued by an organizer on {queue}, behind the work already queued there.",
    )  # fmt: skip
    transaction.on_commit(lambda: _send(target, reference, queue))
    return calibration


def _send(target: Target, reference: Reference, queue: str) -> int:
    soft = settings.RERUN_CALIBRATION_TIME_LIMIT + 60
    try:
        current_app.send_task(
            CALIBRATE_HOST,
            kwargs={
                "target": target.name,
                "reference": reference.name,
                "repeats": settings.RERUN_CALIBRATION_REPEATS,
            },
            queue=queue,
            soft_time_limit=soft,
            time_limit=int(soft * 1.2),
        )
    except Exception as error:  # the broker down: the next sweep sends it again
        logger.warning("The calibration of %s was not sent: %s", target.name, error)
        return 0
    return 1
