"""The verdict of a finished rerun: its output read back with the registry's parser and judged
by the contest's track (submissions/tracks/<track>/rerun.py); the runner only stores it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from django.utils import timezone

from runner.calibration import spreads_for_run
from runner.judge import RERUNS
from runner.judge.rerun import (
    Claim,
    Judgement,
    NotPlannable,
    RerunSpec,
    read_output,
    server_major,
)
from runner.judge.scaling import MEMORY_RULES, Extrapolation, extrapolated
from runner.models import RerunStatus, RerunVerdict, VerificationRun
from runner.targets import rerun_targets
from runner.watch import Outcome
from submissions.contests.ranks import contest_board_changed
from submissions.logparse import LogError
from submissions.logparse.c_format import header_server
from submissions.measures.series import unpack_columns
from submissions.models import Submission
from submissions.setup.declared import declared_settings, entry_family
from submissions.setup.entry_settings import settings_as_run, stored_log_header
from submissions.setup.server_settings import size_text
from submissions.tracks import Track


def rerun_finish(
    run: VerificationRun, outcome: Outcome, spec: RerunSpec, *, track: Track, kind: str
) -> VerificationRun:
    run.refresh_from_db()
    run.status = outcome.status
    run.message = outcome.message
    run.log = outcome.log
    run.result = outcome.result
    run.finished_at = timezone.now()
    if outcome.status == RerunStatus.SUCCEEDED:
        _judge(run, outcome, spec, track, kind)
    run.save()
    return run


def _claim(submission: Submission, spec: RerunSpec) -> Claim:
    """The claim as the rerun started: the figures it was planned from, and the entry's curve."""
    rows = seconds = reads = cpu = None
    # The server as the claim's log names it (the C benchmark's header), else as declared.
    logged = stored_log_header(submission, header_server).get("server_version", "")
    declared = f"{submission.server_family} {submission.server_version}".strip()
    series = getattr(submission, "series", None)
    if series is not None:
        columns = unpack_columns(series.columns)
        rows, seconds = columns["rows"], np.asarray(columns["seconds"], dtype=np.float64)
        reads = columns.get("read_ops")
        cpu = columns.get("server_cpu_s")
    return Claim(
        figures=spec.figures,
        rows=spec.claimed_rows,
        curve_rows=rows,
        curve_seconds=seconds,
        engine=submission.storage_engine,
        curve_read_ops=reads,
        curve_server_cpu=None if cpu is None else np.asarray(cpu, dtype=np.float64),
        server_version=logged or declared,
    )


def _judge(run: VerificationRun, outcome: Outcome, spec: RerunSpec, track: Track, kind: str):
    """Judge the finished rerun (every repeat) and mark the entry verified only when reproduced."""
    submission = run.submission
    rerun = RERUNS[track.workload]
    try:
        reruns = [
            read_output(logs, spec=spec, rows_target=run.rows_target, result=outcome.result)
            for logs in outcome.repeat_logs or [outcome.step_logs]
        ]
        # A judge that takes the host's spreads gets its calibration (runner/calibration.py).
        spreads = {"spreads": spreads_for_run(run)} if rerun.calibrated else {}
        judgement = rerun.judge(
            _claim(submission, spec),
            reruns,
            kind=kind,
            scale=_judged_scale(run),
            host_comparable=_host_comparable(run),
            tolerance=submission.contest.rerun_tolerance,
            **spreads,
        )
    except LogError as error:
        run.status = RerunStatus.FAILED
        run.message = f"The rerun's output could not be read: {error}"
        return
    except NotPlannable as reason:
        run.status = RerunStatus.FAILED
        run.message = f"The rerun cannot be compared with the claim: {reason}"
        return
    if rerun.shape_scaled:
        judgement = within_measured_range(judgement, _extrapolation(run, reruns))
    run.verdict, run.ratio = judgement.verdict, judgement.ratio
    run.message = f"{judgement.message} {_setup_sentence(run)}".strip()
    run.rows_done, run.rate = judgement.rows_done, judgement.rate
    run.result = {**judgement.result, "headline": headline(run, judgement)}
    entry = Submission.objects.filter(pk=submission.pk)
    if judgement.verdict == RerunVerdict.REPRODUCED:
        entry.update(verified=True, verification=RerunVerdict.REPRODUCED)
        contest_board_changed(contest_id=submission.contest_id)
    # Shown apart on the board; never the verified badge, never over a reproduction.
    elif judgement.verdict == RerunVerdict.SHAPE_ONLY and entry.filter(verified=False).update(
        verification=RerunVerdict.SHAPE_ONLY
    ):
        contest_board_changed(contest_id=submission.contest_id)


def _extrapolation(run: VerificationRun, reruns: list) -> Extrapolation | None:
    """What of this verification lies outside the range its scaling rule was measured on
    (setup.scaling.extrapolated); None within it, or not a scaled run."""
    scale = _judged_scale(run)
    if not scale or scale <= 1:
        return None
    submission = run.submission
    family = entry_family(submission)
    return extrapolated(
        settings_as_run(submission, declared_settings(submission), family),
        family=family,
        scale=scale,
        memory_gb=submission.memory_gb,
        server=_rerun_server(reruns),
        engine=submission.storage_engine,
    )


def _rerun_server(reruns: list) -> tuple[str, str] | None:
    """(family, major) of the server the reruns ran, as their logs' headers name it."""
    for output in reruns:
        for parsed in output.logs.values():
            stated = parsed.parameters.get("server_version")
            if stated is not None:
                return server_major(str(stated.value))
    return None


def within_measured_range(judgement: Judgement, outside: Extrapolation | None) -> Judgement:
    """A verification outside its scaling rule's measured range (`outside`) is labelled
    extrapolated, and cannot give `reproduced`: at best shape_only, said why."""
    if outside is None:
        return judgement
    result = {**judgement.result, "extrapolated": outside.sentence()}
    message = f"{outside.sentence()} {judgement.message}"
    if judgement.verdict != RerunVerdict.REPRODUCED:
        return replace(judgement, message=message, result=result)
    result["headline"] = f"the curve and rates agree, but {outside.short()}: shape only"
    return replace(judgement, verdict=RerunVerdict.SHAPE_ONLY, message=message, result=result)


def headline(run: VerificationRun, judgement) -> str:
    """The verdict in one sentence, before its paragraph: "Reproduced at 1/10 on mariadb: within
    the host's resolution of ±14%; cliff at 46% vs 46%, 50%, 48%." The track's judge says why
    (its result's `headline`); a judge that does not, its message's first sentence."""
    label = RerunVerdict(judgement.verdict).label if judgement.verdict else "Judged"
    if isinstance(judgement.result, dict) and judgement.result.get("extrapolated"):
        label += " (extrapolated)"
    why = judgement.result.get("headline") if isinstance(judgement.result, dict) else None
    if not why:
        why = judgement.message.split(". ", 1)[0].rstrip(".")
    return f"{label} at 1/{run.scale} on {run.target}: {why}."


def _judged_scale(run: VerificationRun) -> int | None:
    """The run's scale when its server took the entry's settings scaled with it (a private
    server); on a shared server or SQLite its rows are the run's first at the server's own
    memory, not the run scaled, and are judged as such."""
    target = rerun_targets().get(run.target)
    return run.scale if target is not None and target.server else None


def _setup_sentence(run: VerificationRun) -> str:
    """What ran: the engine and server, the settings in effect as read back from the server,
    the scale and repeats, and how the target's host compares with the entry's."""
    runs = f"{run.repeats} run{'s' if run.repeats > 1 else ''}"
    host = run.host.get("comparison", "") if isinstance(run.host, dict) else ""
    target = rerun_targets().get(run.target)
    engine = run.submission.storage_engine or "the default engine"
    if target is not None and target.family != entry_family(run.submission):
        engine = "Its own engine"  # another server: the entry's engine is not there
    if target is not None and target.server:
        server = f"{engine} on a private {target.server} server"
    else:
        server = f"{engine} on the {run.target} target's own server"
    settings = settings_text(run.settings, target.family if target else "")
    changed = changes_text(run.setting_changes)
    host = f"{host.rstrip('.')}. " if host else ""
    return (
        f"{server}{settings}; scale 1/{run.scale}, {runs} on {run.target}. {host}{changed}".strip()
    )


def changes_text(changes: list) -> str:
    """ "Settings not applied as the claim ran them: key 20G -> 2G (scaled 1/10); ..." (scaled,
    capped, refused, renamed, or a size that shapes the curve left unscaled)."""
    if not isinstance(changes, list) or not changes:
        return ""
    return f"Settings not applied as the claim ran them: {'; '.join(map(str, changes))}."


SETTINGS_NAMED = 6  # more settings than this are counted, not listed (the log has them all)


def settings_text(read_back: dict, family: str) -> str:
    """ "with key=value, ... (read back)", memory in the server's own units."""
    if not isinstance(read_back, dict) or not read_back:
        return ""
    memory = MEMORY_RULES.get(family, {})
    # One order wherever the settings were stored (PostgreSQL's jsonb reorders keys): the
    # memory settings first, as the scaling rule lists them, then the rest by name.
    order = {key: index for index, key in enumerate(memory)}
    ordered = sorted(read_back.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    shown = [
        f"{key}={size_text(int(value), family) if key in memory and str(value).isdigit() else value}"
        for key, value in ordered[:SETTINGS_NAMED]
    ]
    more = len(read_back) - SETTINGS_NAMED
    return f" with {', '.join(shown)}{f' and {more} more' if more > 0 else ''} (read back)"


def _host_comparable(run: VerificationRun) -> bool:
    # Whether the target's host is like the entry's declared one (`host_comparable`, once
    # targets describe their host); unknown (None, or no such field yet): the configured target
    # is taken to be the organizer's verification host, as before hosts were described.
    comparable = getattr(run, "host_comparable", None)
    return True if comparable is None else bool(comparable)
