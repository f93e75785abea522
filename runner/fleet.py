"""The fleet of verification hosts. A worker started anywhere with `--hostname worker@NAME` and
the project's settings registers the machine NAME (VerificationHost) with its facts, and beats
for it with its queues (runner/heartbeats.py). Each rerun queue it consumes, rerun.<target>, it
also consumes as rerun.<target>@NAME: a verification is sent there when that host is alive and
comparable with the hardware and server the entry declared, else to the general queue."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Q
from django.utils import timezone

from runner.host import (
    HostComparison,
    compare_hosts,
    compare_server,
    host_name,
    server_version,
    target_host,
    this_host,
)
from runner.models import (
    CalibrationStatus,
    HostCalibration,
    RerunStatus,
    VerificationHost,
    VerificationRun,
    WorkerBeat,
)
from runner.targets import Target, rerun_targets

HOST_FACTS = ("cpu_model", "cores", "memory_gb", "drive_kind", "drive_model", "servers")
NOT_CALIBRATED = "not calibrated"
# What a calibration's message says its spread could refute, with however many reruns.
COULD_REFUTE = re.compile(r"; with \d+ reruns it (could refute [^;]*?)\.?$")


def host_queue(queue: str, host: str) -> str:
    return f"{queue}@{host}"


def host_queues(queues: list[str], host: str) -> list[str]:
    """The host's own queue of each rerun queue it consumes."""
    return [
        host_queue(queue, host)
        for queue in queues
        if queue.startswith("rerun.") and "@" not in queue
    ]


# --- this worker's host ----------------------------------------------------------------------


def fact_overrides(overrides) -> dict:
    """RERUN_HOST_FACTS checked: an object of known facts, else an error naming the problem."""
    if not isinstance(overrides, dict):
        raise ImproperlyConfigured(
            f"RERUN_HOST_FACTS must be a JSON object of host facts, not {overrides!r}."
        )
    unknown = sorted(set(overrides) - set(HOST_FACTS))
    if unknown:
        raise ImproperlyConfigured(
            f"RERUN_HOST_FACTS names unknown facts {', '.join(unknown)}; the facts are "
            f"{', '.join(HOST_FACTS)}."
        )
    return {key: value for key, value in overrides.items() if value not in ("", None)}


def server_facts() -> dict:
    """The private servers this host's settings start, each with what its binary says."""
    binaries = {
        "mariadb": settings.RERUN_RECOVERY_MARIADBD,
        "postgresql": str(Path(settings.RERUN_RECOVERY_POSTGRESQL_BIN_DIR) / "postgres"),
    }
    # Copies: server_version's answers are cached for the process.
    return {kind: dict(server_version(kind, binary)) for kind, binary in binaries.items()}


def host_facts() -> dict:
    """This host as read from /proc, /sys and its server binaries, with what the organizer set
    in RERUN_HOST_FACTS over it."""
    return {**this_host(), "servers": server_facts(), **fact_overrides(settings.RERUN_HOST_FACTS)}


def facts_for_target(target: Target, facts: dict | None = None) -> dict:
    """The host as a target sees it: its per-target override (RERUN_<TARGET>_HOST) on top."""
    return target_host(target.host, host_facts() if facts is None else facts)


@dataclass(frozen=True)
class Registration:
    name: str
    facts: dict
    target_facts: dict
    overridden: list


def this_registration(worker: str, queues: list[str]) -> Registration:
    """What a starting worker registers of its host (read once, in the worker's main process)."""
    facts = host_facts()
    targets = rerun_targets()
    served = {queue.removeprefix("rerun.") for queue in queues}
    target_facts = {
        name: facts_for_target(target, facts)
        for name, target in targets.items()
        if name in served and any(target.host.values())
    }
    return Registration(
        name=host_name(worker),
        facts=facts,
        target_facts=target_facts,
        overridden=sorted(fact_overrides(settings.RERUN_HOST_FACTS)),
    )


def host_beat(*, registration: Registration, now=None) -> None:
    VerificationHost.objects.update_or_create(
        name=registration.name,
        defaults={
            "facts": registration.facts,
            "target_facts": registration.target_facts,
            "overridden": registration.overridden,
            "last_seen": now or timezone.now(),
        },
    )


# --- what the organizer sees -----------------------------------------------------------------


def host_calibration(name: str, *, now: datetime | None = None) -> str:
    """The host's calibration of the classic judge's spreads, in a few words: the latest of
    each target's (runner/calibration.py), fresh or stale by RERUN_CALIBRATION_MAX_AGE_DAYS,
    one being measured, or the reason the last one failed."""
    now = now or timezone.now()
    stale_before = now - timedelta(days=settings.RERUN_CALIBRATION_MAX_AGE_DAYS)
    said = []
    for target in sorted(
        set(HostCalibration.objects.filter(host=name).values_list("target", flat=True))
    ):
        rows = HostCalibration.objects.filter(host=name, target=target)
        latest = rows.first()  # newest started first
        done = rows.filter(status=CalibrationStatus.DONE).order_by("-measured_at").first()
        if done is not None:
            when = done.measured_at or done.started_at
            age = "stale" if when < stale_before else "fresh"
            if done.stale:  # the host's reference speed moved since (calibration_drift)
                age = f"stale: {done.stale}"
            found = COULD_REFUTE.search(done.message)
            could = found.group(1) if found else ""
            said.append(
                f"{target}: {done.runs} runs of {done.reference} on "
                f"{when:%d %b %Y %H:%M} UTC ({age})" + (f", {could}" if could else "")
            )
        if latest is not None and latest.status in (
            CalibrationStatus.QUEUED,
            CalibrationStatus.RUNNING,
        ):
            said.append(f"{target}: calibrating now ({latest.get_status_display().lower()})")
        elif latest is not None and latest.status == CalibrationStatus.FAILED:
            said.append(f"{target}: the last calibration failed: {latest.message}")
    return "; ".join(said) or NOT_CALIBRATED


def host_engines(queues: list[str]) -> dict[str, list[str]]:
    """The engines each target whose queue the host serves can run (its own queue or the
    target's), as routing reads them (runner/targets.py): MyRocks only where it is installed."""
    targets = rerun_targets()
    served = {queue.split("@", 1)[0].removeprefix("rerun.") for queue in queues}
    return {name: list(targets[name].engines) for name in sorted(served) if name in targets}


# How many measured calibrations of a reference the host list shows as its speed's trend.
TREND_CALIBRATIONS = 5


def reference_speeds(name: str) -> list[dict]:
    """Per target and reference, how fast this host ran the reference in its last measured
    calibrations (the median of each calibration's runs' average rate), newest first: its speed
    now, and how it moved."""
    done = HostCalibration.objects.filter(host=name, status=CalibrationStatus.DONE)
    speeds = []
    for target, reference in sorted(set(done.values_list("target", "reference"))):
        rows = done.filter(target=target, reference=reference).order_by("-measured_at")
        history = [
            {"measured_at": row.measured_at.isoformat(), "rows_per_second": rate}
            for row in rows[:TREND_CALIBRATIONS]
            if (rate := _median_rate(row.figures)) is not None
        ]
        if history:
            speeds.append({"target": target, "reference": reference, "history": history})
    # The fixed reference workload every calibration runs beside its own (runner/
    # reference_runs.py): the rate a verification's references are set against.
    for target in sorted(set(done.values_list("target", flat=True))):
        rows = done.filter(target=target, reference_rate__isnull=False).order_by("-measured_at")
        history = [
            {"measured_at": row.measured_at.isoformat(), "rows_per_second": row.reference_rate}
            for row in rows[:TREND_CALIBRATIONS]
        ]
        if history:
            speeds.append({"target": target, "reference": FIXED_REFERENCE, "history": history})
    return speeds


FIXED_REFERENCE = "fixed reference workload"


def _median_rate(figures: list) -> float | None:
    rates = sorted(
        each["average_rate"]
        for each in figures
        if isinstance(each.get("average_rate"), float | int)
    )
    if not rates:
        return None
    middle = len(rates) // 2
    return float(rates[middle] if len(rates) % 2 else (rates[middle - 1] + rates[middle]) / 2)


def speed_words(speed: dict) -> str:
    """One reference's speed in words: the newest, and its ratio to each older one."""
    newest, *older = speed["history"]
    rate = newest["rows_per_second"]
    said = f"{speed['target']}, {speed['reference']}: {rate:,.0f} rows/s"
    if older:
        ratios = ", ".join(f"{rate / each['rows_per_second']:.2f}x" for each in older)
        said += f" (against the {len(older)} calibration{'s' if len(older) > 1 else ''} before: {ratios})"
    return said


def _fresh_since(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS)


@dataclass(frozen=True)
class HostRow:
    host: VerificationHost
    alive: bool
    queues: list[str]
    running: list[VerificationRun]
    calibration: str
    engines: dict[str, list[str]]
    speeds: list[dict]

    @property
    def speed_words(self) -> list[str]:
        return [speed_words(each) for each in self.speeds]


def host_rows(now=None) -> list[HostRow]:
    """Every registered host, live or not, with its queues, what it runs and its calibration."""
    now = now or timezone.now()
    since = _fresh_since(now)
    beats = list(WorkerBeat.objects.filter(beat_at__gte=since).values_list("worker", "queue"))
    running = list(VerificationRun.objects.filter(status=RerunStatus.RUNNING).order_by("pk"))
    rows = []
    for host in VerificationHost.objects.all():
        queues = sorted({queue for worker, queue in beats if host_name(worker) == host.name})
        rows.append(
            HostRow(
                host=host,
                alive=host.last_seen >= since and bool(queues),
                queues=queues,
                running=[run for run in running if host_name(run.worker) == host.name],
                calibration=host_calibration(host.name),
                engines=host_engines(queues),
                speeds=reference_speeds(host.name),
            )
        )
    return rows


def host_data(row: HostRow) -> dict:
    """One host as the API gives it."""
    return {
        "name": row.host.name,
        "alive": row.alive,
        "last_seen": row.host.last_seen.isoformat(),
        "first_seen": row.host.first_seen.isoformat(),
        "queues": row.queues,
        "facts": row.host.facts,
        "target_facts": row.host.target_facts,
        "overridden": row.host.overridden,
        "running": [
            {"id": run.pk, "target": run.target, "worker": run.worker} for run in row.running
        ],
        "calibration": row.calibration,
        "engines": row.engines,
        "reference_speeds": row.speeds,
    }


# --- routing ---------------------------------------------------------------------------------


def compare_with_entry(*, facts: dict, submission, target: Target, scale: int) -> HostComparison:
    """The entry's declared hardware against the host's, and its server against what the host
    can start for the target."""
    hardware = compare_hosts(
        host=facts,
        declared={
            "cores": submission.cores,
            "memory_gb": submission.memory_gb,
            "drive_kind": submission.drive_kind,
        },
        scale=scale,
    )
    server = compare_server(
        servers=facts.get("servers") or {},
        kind=target.server,
        family=submission.server_family,
        version=submission.server_version,
    )
    if hardware.comparable and not server.comparable:
        sentence = f"Host not comparable: {server.sentence} ({hardware.sentence})"
    else:
        sentence = "; ".join(part for part in (hardware.sentence, server.sentence) if part)
    return HostComparison(hardware.comparable and server.comparable, sentence)


@dataclass(frozen=True)
class HostChoice:
    name: str
    comparable: bool
    sentence: str
    busy: int  # its runs queued or running


def _busy(name: str) -> int:
    return VerificationRun.objects.filter(
        Q(routed_host=name) | Q(worker__endswith=f"@{name}"),
        status__in=(RerunStatus.QUEUED, RerunStatus.RUNNING),
    ).count()


def host_choices(*, submission, target: Target, scale: int, now=None) -> list[HostChoice]:
    """Every live host serving the target, comparable with the entry or not and why."""
    since = _fresh_since(now or timezone.now())
    prefix = host_queue(target.queue, "")
    alive = {
        queue.removeprefix(prefix)
        for queue in WorkerBeat.objects.filter(
            beat_at__gte=since, queue__startswith=prefix
        ).values_list("queue", flat=True)
    }
    choices = []
    for host in VerificationHost.objects.filter(name__in=alive, last_seen__gte=since):
        facts = host.target_facts.get(target.name) or host.facts
        comparison = compare_with_entry(
            facts=facts, submission=submission, target=target, scale=scale
        )
        choices.append(
            HostChoice(host.name, comparison.comparable, comparison.sentence, _busy(host.name))
        )
    return choices


def pick_host(choices: list[HostChoice]) -> HostChoice | None:
    """The least busy comparable host (by name among equals); None when none is."""
    comparable = [choice for choice in choices if choice.comparable]
    return min(comparable, key=lambda choice: (choice.busy, choice.name), default=None)


def no_comparable_host(target: Target) -> str:
    return (
        f"No live verification host serving {target.name} is comparable with the entry's "
        f"declared hardware and server: the run goes to the general {target.queue} queue, and "
        "whichever host takes it is compared as it starts (a host unlike the entry's judges "
        "the curve's shape only)."
    )
