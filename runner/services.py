"""Verification reruns: start, cancel, execute and sweep. Tasks, views and the admin call these."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from iibench_site.celery import publish
from runner import fleet, servers
from runner.benchmark_runs import (
    NotResumable,
    execute_repeats,
    remove_scratch,
    remove_scratch_files,
    resume_point,
)
from runner.crash_procedure import execute_recovery
from runner.host import free_memory
from runner.judge import RERUNS, rerun_for
from runner.judge.memory_budget import LEAST_CONNECTION_CAP
from runner.judge.rerun import (
    NotPlannable,
    RerunRequest,
    RerunSpec,
    RunPlan,
    TargetOptions,
    engine_for,
)
from runner.judge.resolution import DEFAULT_REPEATS
from runner.judge.scaling import (
    NoScaleFits,
    RerunSettings,
    default_scale,
    max_scale,
    rerun_settings,
    scaled_rows,
)
from runner.models import RerunKind, RerunStatus, VerificationRun
from runner.option_tables import options_kept
from runner.selectors import claimed_rows
from runner.targets import Target, rerun_targets
from runner.verdicts import rerun_finish
from runner.verification import execute_on_private_server
from runner.watch import Outcome
from submissions.models import Submission
from submissions.setup.declared import declared_settings, entry_family
from submissions.setup.engines import normalised_engine
from submissions.setup.entry_settings import logged_settings, settings_as_run
from submissions.tracks import TRACKS, Track

# The task that runs a rerun, sent by name: the service never imports the task module, which
# imports the service (runner/tasks.py registers the task under this name).
RUN_VERIFICATION = "runner.tasks.run_verification"

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


DEFAULT_REPEATS_AT_SCALE = DEFAULT_REPEATS  # a scaled rerun's repeats (resolution.py)
MAX_REPEATS = 10


def rerun_start(
    *,
    submission: Submission,
    target: str,
    requested_by,
    rows: int | None = None,
    scale: int | None = None,
    repeats: int | None = None,
    comparison: bool = False,
) -> VerificationRun:
    """Queue a rerun. A verification runs the entry's own server family, engine and settings at
    scale 1/k (k from the target's time limit unless given); a target that cannot is refused
    unless a comparison run is asked for, which never verifies. `rows` sets the size directly
    (the scale is then the claim's rows over it)."""
    chosen = target_named(target)
    refusal = _refusal(submission, chosen)
    if refusal and not comparison:
        raise RerunRefused(
            f'{refusal} Ask for a comparison run ("comparison": true) to run it anyway: '
            "it is labelled so and never verifies.",
            "target",
        )
    size = _rerun_size(
        submission,
        chosen,
        rows=rows,
        scale=scale,
        repeats=repeats,
        limit=None if refusal or comparison else _scale_limit(submission),
    )
    rerun = rerun_for(submission.contest.track.workload)
    if rerun and rerun.procedure == "crash":
        # One crash at the rows asked for: the claim's own settings, one run.
        size = _Size(size.rows, scale=1, repeats=1)
    _check_workload(submission, chosen, size.rows)
    kind = RerunKind.COMPARISON if (refusal or comparison) else RerunKind.VERIFICATION
    picked = fleet.pick_host(
        fleet.host_choices(submission=submission, target=chosen, scale=size.scale)
    )
    with transaction.atomic():
        run = VerificationRun.objects.create(
            submission=submission,
            target=chosen.name,
            kind=kind,
            rows_target=size.rows,
            scale=size.scale,
            repeats=size.repeats,
            requested_by=requested_by,
            routed_host=picked.name if picked else "",
            message="" if picked else fleet.no_comparable_host(chosen),
        )
        transaction.on_commit(lambda: _enqueue(run, chosen))
    return run


def host_choices_for_entry(submission: Submission, targets: list[str]) -> dict[str, list]:
    """Per target: every live host serving it, comparable with the entry or not and why, at
    the scale a rerun with nothing asked would take (the form shows them before a start)."""
    choices = {}
    for name in targets:
        target = target_named(name)
        choices[name] = fleet.host_choices(
            submission=submission, target=target, scale=_default_scale(submission, target)
        )
    return choices


def rerun_form_defaults(*, submission: Submission, targets: list[str]) -> dict:
    """What the organizer's rerun form starts from: the first of `targets` (those a live worker
    serves) that can verify the entry (its own server family and engine, on a private server),
    the contest's verification scale, and the repeats a scaled run takes. Without a contest
    scale both stay blank: the service then picks the scale that fits the target's time."""
    known = rerun_targets()
    rerun = rerun_for(submission.contest.track.workload)
    procedure = rerun.procedure if rerun else "steps"
    verifying = [
        name
        for name in targets
        if name in known
        and known[name].procedure == procedure
        and _refusal(submission, known[name]) is None
    ]
    scale = submission.contest.verification_scale
    initial: dict = {"scale": scale, "repeats": None}
    if scale:
        initial["repeats"] = DEFAULT_REPEATS_AT_SCALE if scale > 1 else 1
    if verifying:
        initial["target"] = verifying[0]
    return initial


def _default_scale(submission: Submission, target: Target) -> int:
    """The scale the rerun form starts from: the contest's verification scale, else the one a
    rerun with nothing asked would take; 1 (full size) for a size the target refuses."""
    if submission.contest.verification_scale:
        return submission.contest.verification_scale
    limit = None if _refusal(submission, target) else _scale_limit(submission)
    try:
        return _rerun_size(
            submission, target, rows=None, scale=None, repeats=None, limit=limit
        ).scale
    except RerunRefused:
        return 1


def _refusal(submission: Submission, target: Target) -> str | None:
    return target.verification_refusal(
        family=entry_family(submission),
        # "InnoDB plugin 1.0.1" runs on a target's InnoDB (the board's normalised engine).
        engine=normalised_engine(submission.storage_engine, submission.server_family),
    )


@dataclass(frozen=True)
class _Size:
    rows: int
    scale: int
    repeats: int


def _rerun_size(
    submission: Submission,
    target: Target,
    *,
    rows: int | None,
    scale: int | None,
    repeats: int | None,
    limit: tuple[int, str] | None,
) -> _Size:
    claimed = claimed_rows(submission)
    rows_given = rows is not None
    if rows is not None and scale is not None:
        raise RerunRefused("Give the rows or the scale, not both.", "rows")
    if repeats is not None and not 1 <= repeats <= MAX_REPEATS:
        raise RerunRefused(f"Between 1 and {MAX_REPEATS} repeats.", "repeats")
    if scale is not None and scale < 1:
        raise RerunRefused(
            "The scale k is a whole number of at least 1 (1/k of the rows).", "scale"
        )
    if rows is None:
        if scale is None:
            try:
                scale = default_scale(
                    claimed_rows=claimed,
                    claimed_seconds=submission.elapsed_seconds,
                    time_limit=target.time_limit,
                    repeats=repeats or DEFAULT_REPEATS_AT_SCALE,
                    largest=limit,
                )
            except NoScaleFits as error:
                raise RerunRefused(str(error), "scale") from None
        if limit is not None and scale > limit[0]:
            raise RerunRefused(
                f"At 1/{scale} the entry's {limit[1]} would fall below the smallest size whose "
                f'cliff still follows the claim\'s (README "Scaling rule"): use a scale of at '
                f"most {limit[0]}.",
                "scale",
            )
        rows = scaled_rows(claimed, scale)
    else:
        scale = max(1, round(claimed / rows)) if claimed else 1
    if rows < 1_000:
        raise RerunRefused("A rerun needs at least 1,000 rows.", "rows")
    if rows > target.max_rows:
        raise RerunRefused(
            f"The {target.name} target allows at most {target.max_rows:,} rows.", "rows"
        )
    if repeats is None:
        # Rows asked for directly keep the one run they always had; a scaled run is repeated.
        repeats = DEFAULT_REPEATS_AT_SCALE if scale > 1 and not rows_given else 1
    return _Size(rows, scale, repeats)


def _scale_limit(submission: Submission) -> tuple[int, str] | None:
    family = entry_family(submission)
    return max_scale(
        settings_as_run(submission, declared_settings(submission), family),
        family=family,
        memory_gb=submission.memory_gb,
        logged=logged_settings(submission),
        engine=normalised_engine(_declared_engine(submission), submission.server_family),
    )


def _check_workload(submission: Submission, target: Target, rows: int) -> None:
    track = submission.contest.track
    rerun = rerun_for(track.workload)
    if rerun is None:
        raise RerunRefused(f"A {track.label} entry cannot be rerun.")
    crash = rerun.procedure == "crash"
    server_targets = sorted(
        name for name, each in rerun_targets().items() if each.procedure == "crash"
    )
    if crash and target.procedure != "crash":
        raise RerunRefused(
            f"A {track.label.lower()} rerun runs against a server the worker starts itself: "
            f"choose a recovery target ({', '.join(server_targets) or 'none is configured'}).",
            "target",
        )
    if not crash and target.procedure == "crash":
        others = ", ".join(
            each.label.lower()
            for each in TRACKS.values()
            if (each_rerun := rerun_for(each.workload)) and each_rerun.procedure == "crash"
        )
        raise RerunRefused(f"The {target.name} target runs {others} reruns only.", "target")
    reason = rerun.refusal(
        RerunRequest(
            figures=_track_figures(submission),
            claimed_rows=claimed_rows(submission),
            rows=rows,
            time_limit=target.time_limit,
        )
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
    # Celery's own limits are a safety net above the service's, which kills the benchmark itself.
    soft = target.time_limit + 60
    queue = fleet.host_queue(target.queue, run.routed_host) if run.routed_host else target.queue
    try:
        publish(
            current_app,
            RUN_VERIFICATION,
            args=[run.pk],
            queue=queue,
            soft_time_limit=soft,
            time_limit=int(soft * 1.2),
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
            status=RerunStatus.RUNNING,
            # A resumed run keeps the start of its first worker: its elapsed time is the run's.
            started_at=Coalesce(F("started_at"), Value(now)),
            heartbeat_at=now,
            worker=worker[:200],
        )
        == 1
    )


def _references_beside(rerun, target: Target) -> bool:
    """A judge that reads the host's speed (the classic, `calibrated`) gets the reference runs
    beside its repeats, where the target runs the reference's server (an InnoDB one)."""
    return bool(rerun.calibrated and settings.RERUN_REFERENCE_RUNS and target.family == "mysql")


def rerun_execute(*, run_id: int) -> VerificationRun:
    run = VerificationRun.objects.select_related("submission__contest").get(pk=run_id)
    target = target_named(run.target)
    work_dir = Path(settings.RERUN_WORK_DIR)
    work_dir.mkdir(parents=True, exist_ok=True)
    spec = spec_of(run, target, work_dir)
    track = run.submission.contest.track
    rerun = RERUNS[track.workload]
    _describe_host(run, target)
    try:
        asked = _rerun_settings(run, target, track)
        if rerun.procedure == "crash":
            if run.resumes:
                raise NotResumable("The worker stopped mid-crash: start a new rerun.")
            outcome = execute_recovery(
                run, target, spec, rerun.crash_plan, server_settings=asked.applied,
                memory_limit=asked.memory_limit,
            )  # fmt: skip
        else:
            steps = rerun.steps(spec)
            resume = resume_point(run, steps) if run.resumes else None
            if target.server:
                outcome = execute_on_private_server(
                    run, target, spec, rerun.steps, asked, resume,
                    references=_references_beside(rerun, target),
                )  # fmt: skip
            else:
                outcome = execute_repeats(
                    run, target, spec, steps,
                    before_repeat=lambda _: remove_scratch(spec), resume=resume,
                )  # fmt: skip
    except (NotPlannable, servers.ServerError, NotResumable) as error:
        outcome = Outcome(RerunStatus.FAILED, str(error), "")
        remove_scratch(spec)  # a table left for a resume that cannot happen
    except Exception as error:  # any other error ends the rerun, said as it is
        # Left running, the sweep would queue it again to resume from what this attempt has
        # already removed (its private server's data), and the page would then give that as
        # the reason. The run fails here with the real cause ("database is locked", ...).
        logger.exception("Rerun %s stopped on an error", run.pk)
        outcome = Outcome(
            RerunStatus.FAILED,
            f"The rerun stopped on an error: {type(error).__name__}: {error}"[:2000],
            "",
        )
        remove_scratch(spec)
    return rerun_finish(run, outcome, spec, track=track, kind=run.kind)


def _declared_engine(submission: Submission) -> str:
    return str(_track_figures(submission).get("engine") or submission.storage_engine)


def _describe_host(run: VerificationRun, target: Target) -> None:
    """The host, and whether it is like the one the entry declared, stored on the run: its
    hardware and the server it starts, as routing compared them (runner/fleet.py)."""
    run.host = fleet.facts_for_target(target)
    comparison = fleet.compare_with_entry(
        facts=run.host, submission=run.submission, target=target, scale=run.scale
    )
    run.host_comparable = comparison.comparable
    run.host["comparison"] = comparison.sentence
    VerificationRun.objects.filter(pk=run.pk).update(
        host=run.host, host_comparable=run.host_comparable
    )


def _rerun_settings(run: VerificationRun, target: Target, track: Track) -> RerunSettings:
    submission = run.submission
    if not target.server:
        return RerunSettings({}, {}, [])
    crash = RERUNS[track.workload].procedure == "crash"
    family = entry_family(submission)
    engine = engine_for(_declared_engine(submission), target.engines)
    return rerun_settings(
        # Where the entrant declared none, its log's own (the C benchmark prints them all).
        settings_as_run(submission, declared_settings(submission), family),
        entry_family=family,
        server_family=target.family,
        scale=run.scale,
        # A crash is timed at the claim's own size, with the settings it declared: no memory
        # is made up from its RAM for it. Nor for MyRocks: the RAM gives an InnoDB pool, of no
        # use to a MyRocks run, and MyRocks' own sizes are never guessed (docs/scaling.md).
        memory_gb=0 if crash or engine == "ROCKSDB" else submission.memory_gb,
        host_memory_gb=float(run.host.get("memory_gb") or 0),
        logged=logged_settings(submission),
        # Exact names and types as the server binary this worker runs describes them, and
        # the server's memory kept below this host's free memory now.
        options=options_kept(servers.server_config(target.server, engine)),
        free_memory=free_memory(),
        connection_cap=max(
            LEAST_CONNECTION_CAP, target.writers + target.readers + target.query_threads + 16
        ),
        # MyISAM's and Aria's data live in the page cache: their cgroup is the RAM scaled.
        engine=engine or "",
    )


def spec_of(run: VerificationRun, target: Target, work_dir: Path) -> RerunSpec:
    """What a rerun runs and compares with: its plan on the target, the claim's figures."""
    submission = run.submission
    contest = submission.contest
    figures = _track_figures(submission)
    declared_engine = _declared_engine(submission)
    plan = RunPlan(
        binary=str(settings.IIBENCH_BINARY),
        db_url=target.url.format(work_dir=work_dir, run_id=run.pk),
        rows=run.rows_target,
        rows_per_commit=contest.rows_per_commit,
        rows_per_insert=contest.max_rows_per_insert,
        seed=run.pk,
        engine=engine_for(declared_engine, target.engines),
    )
    return RerunSpec(
        plan=plan,
        figures=figures,
        claimed_rows=claimed_rows(submission),
        options=TargetOptions(target.writers, target.readers, target.query_threads),
        scratch_dir=str(work_dir / f"rerun-{run.pk}-load"),
    )


def _remove_scratch_of(run_id: int, target_name: str) -> None:
    """What a killed worker left behind (it never reached its `finally`)."""
    try:
        target = target_named(target_name)
    except RerunRefused:
        return  # a target no longer configured: nothing known to remove
    work_dir = Path(settings.RERUN_WORK_DIR)
    remove_scratch_files(
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
    for run in unclaimed.select_related("submission"):
        if run.target not in targets:
            continue
        if run.routed_host:
            _route_again(run, targets[run.target])
        if _enqueue(run, targets[run.target]):
            sent += 1
    return sent


def _comparable_live_host(run: VerificationRun, target: Target) -> str | None:
    """The host to send a run to now: the one it was sent to while that is alive and
    comparable, else the least busy comparable live host; None when there is none."""
    choices = fleet.host_choices(submission=run.submission, target=target, scale=run.scale)
    if any(each.name == run.routed_host and each.comparable for each in choices):
        return run.routed_host
    picked = fleet.pick_host(choices)
    return picked.name if picked else None


def _route_again(run: VerificationRun, target: Target) -> None:
    # A queued run whose host went away before taking it: another comparable host, else the
    # general queue, said as rerun_start says it.
    host = _comparable_live_host(run, target)
    if host == run.routed_host:
        return
    run.routed_host = host or ""
    message = "" if host else fleet.no_comparable_host(target)
    VerificationRun.objects.filter(pk=run.pk, status=RerunStatus.QUEUED).update(
        routed_host=run.routed_host, message=message
    )


def reruns_sweep(*, now=None) -> int:
    """The runs whose worker stopped beating (killed, deployed, host lost): one that has
    reported progress is queued again, to be resumed from its table by the next worker, at
    most RERUN_MAX_RESUMES times; the others are failed, with why, and what their worker left
    is removed. Returns how many were swept."""
    now = now or timezone.now()
    timeout = settings.RERUN_HEARTBEAT_TIMEOUT
    stale = VerificationRun.objects.filter(
        status=RerunStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=timeout)
    ).select_related("submission__contest")
    swept = 0
    for run in stale:
        # One conditional UPDATE per run: a run whose worker beat meanwhile is left alone.
        still_stale = VerificationRun.objects.filter(
            pk=run.pk, status=RerunStatus.RUNNING, heartbeat_at=run.heartbeat_at
        )
        target = rerun_targets().get(run.target)
        message = (
            f"The worker stopped: no heartbeat for more than {timeout} s "
            "(it was killed or its host went away). Start a new rerun."
        )
        if target is not None and _resumable(run, target):
            # A run sent to a comparable host resumes only on one: its curve's first part was
            # measured there, and the rest must be measured alike.
            host = _comparable_live_host(run, target) if run.routed_host else ""
            if host is not None:
                requeued = still_stale.update(
                    status=RerunStatus.QUEUED,
                    resumes=F("resumes") + 1,
                    routed_host=host,
                    message=(
                        f"The worker stopped (no heartbeat for more than {timeout} s): queued "
                        "again, to continue from its table" + (f" on host {host}." if host else ".")
                    ),
                )
                if requeued:
                    run.routed_host = host
                    _enqueue(run, target)
                swept += requeued
                continue
            message = (
                f"The worker on host {run.routed_host} stopped (no heartbeat for more than "
                f"{timeout} s) and no other live host is comparable with the entry's declared "
                "one: not resumed. Start a new rerun once a comparable host is up."
            )
        if still_stale.update(status=RerunStatus.FAILED, finished_at=now, message=message):
            swept += 1
            _remove_scratch_of(run.pk, run.target)
    return swept


def _resumable(run: VerificationRun, target: Target) -> bool:
    # Whether its plan can continue (one benchmark run of inserts) is decided by the worker
    # that picks it up (benchmark_runs.resume_point), which fails it with why otherwise.
    return (
        target.procedure != "crash"
        and run.resumes < settings.RERUN_MAX_RESUMES
        and run.samples.exists()
    )
