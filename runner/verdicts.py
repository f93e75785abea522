"""The verdict of a finished rerun: its output read back with the registry's parser and judged
by the contest's track (runner/judge/<workload>.py); the runner only stores it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from django.utils import timezone

from runner.activity import stated_other_io, while_it_ran
from runner.calibration import calibration_drift, host_speed_for_run, spreads_for_run
from runner.judge import RERUNS
from runner.judge.rerun import (
    BUSY_CORES,
    STEAL_CORES,
    Claim,
    Judgement,
    NotPlannable,
    RerunSpec,
    other_work,
    read_output,
    server_major,
)
from runner.judge.scaling import MEMORY_RULES, Extrapolation, extrapolated
from runner.models import RerunKind, RerunStatus, RerunVerdict, VerificationRun
from runner.targets import rerun_targets
from runner.watch import Outcome
from submissions.contests.ranks import contest_board_changed
from submissions.contests.rule_versions import contest_rule_set
from submissions.logparse import LogError
from submissions.logparse.c_format import header_server
from submissions.measures.figures import log_figures
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
    if run.verdict:
        entry_verification_refresh(submission_id=run.submission_id)
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
    """Judge the finished rerun (every repeat); the entry's outcome is stored from its judged
    verifications after (entry_verification_refresh)."""
    submission = run.submission
    rerun = RERUNS[track.workload]
    try:
        reruns = [
            read_output(logs, spec=spec, rows_target=run.rows_target, result=outcome.result)
            for logs in outcome.repeat_logs or [outcome.step_logs]
        ]
        # A judge that takes the host's spreads gets its calibration (runner/calibration.py),
        # the reference runs beside the repeats and the host's cores (issue 45).
        speed = host_speed_for_run(run) if rerun.calibrated else None
        spreads = (
            {"spreads": spreads_for_run(run), "host_speed": speed, "cores": _cores(run)}
            if rerun.calibrated
            else {}
        )
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
    activity = _while_it_ran(reruns, outcome)
    if activity:
        run.host = {**(run.host or {}), "while_it_ran": activity}
    if speed is not None:
        busy = [other_work(parsed, each.result.get(STEAL_CORES)) for each in reruns
                for parsed in each.logs.values()]  # fmt: skip
        quiet = all(each is not None and each < BUSY_CORES for each in busy)
        stale = calibration_drift(run, speed, quiet_host=quiet)
        if stale:
            run.message = f"{run.message} {stale}"
    rates = _terminal_rates(submission, reruns)
    if rates:
        run.result[TERMINAL_RATES] = rates


# Each repeat's terminal rate measured as the entry page measures the claim's (the contest's
# window scaled to the run, measures/figures.py), so the host board sets like beside like; the
# judge's own figures use a window of their own (the last 3% of the run).
TERMINAL_RATES = "terminal_rates"


def _terminal_rates(submission: Submission, reruns: list) -> list[float]:
    rules = contest_rule_set(submission.contest)
    found = []
    for output in reruns:
        logs = list(output.logs.values())
        figures = log_figures(logs[0], rules) if len(logs) == 1 else None
        if figures is None or figures.terminal_rate is None:
            return []
        found.append(figures.terminal_rate)
    return found


# The order an entry's verifications are shown in: a reproduction over a shape over the rest
# (the latest of them). A reproduction is never hidden by a later inconclusive run.
OUTCOME_ORDER = {RerunVerdict.REPRODUCED: 0, RerunVerdict.SHAPE_ONLY: 1}
OUTCOME_VERDICTS = (
    RerunVerdict.REPRODUCED,
    RerunVerdict.SHAPE_ONLY,
    RerunVerdict.NOT_REPRODUCED,
    RerunVerdict.INCONCLUSIVE,
)


def entry_outcome_run(submission: Submission) -> VerificationRun | None:
    """The verification whose verdict is the entry's outcome: of those judged since the last
    edit of its setup (machine, server, engine, settings), else of all (then said to be
    before the edit): a reproduction, else a shape, else the latest verdict."""
    runs = VerificationRun.objects.filter(
        submission=submission,
        kind=RerunKind.VERIFICATION,
        status=RerunStatus.SUCCEEDED,
        verdict__in=OUTCOME_VERDICTS,
        finished_at__isnull=False,
    ).only("verdict", "finished_at", "result")
    edited = submission.setup_edited_at
    current = [run for run in runs if edited is None or run.finished_at >= edited]
    found = current or list(runs)
    if not found:
        return None
    latest_first = sorted(found, key=lambda run: (run.finished_at, run.pk), reverse=True)
    return min(latest_first, key=lambda run: OUTCOME_ORDER.get(run.verdict, 2))


def entry_verification_refresh(*, submission_id: int) -> bool:
    """Store the entry's one verification outcome from its judged verifications (the verdict,
    when its rerun finished, its headline). True when it changed: the contest's board then
    moves on, so every board, export and feed shows it at once."""
    submission = Submission.objects.get(pk=submission_id)
    run = entry_outcome_run(submission)
    result = run.result if run is not None and isinstance(run.result, dict) else {}
    said = result.get("headline")
    outcome = {
        "verification": run.verdict if run else "",
        "verification_at": run.finished_at if run else None,
        "verification_headline": said if isinstance(said, str) else "",
    }
    changed = Submission.objects.filter(pk=submission_id).exclude(**outcome).update(**outcome)
    if changed:
        contest_board_changed(contest_id=submission.contest_id)
    return bool(changed)


def _while_it_ran(reruns: list, outcome: Outcome) -> str:
    """The host's other work, steal and other processes' disk I/O beside the repeats, in one
    line (runner/activity.py); the busy cores as the judge counts them (`other_work`)."""
    busy, steal = [], []
    for rerun in reruns:
        stolen = rerun.result.get(STEAL_CORES)
        steal.append(stolen)
        busy.extend(other_work(parsed, stolen) for parsed in rerun.logs.values())
    texts = [text for logs in outcome.repeat_logs or [outcome.step_logs] for text in logs.values()]
    return while_it_ran(busy, steal, [rate for text in texts for rate in stated_other_io(text)])


def _cores(run: VerificationRun) -> int | None:
    """The cores of the host that ran the run, as its worker described it."""
    host = run.host if isinstance(run.host, dict) else {}
    kept = host.get("reference", {})
    cores = (kept.get("cores") if isinstance(kept, dict) else None) or host.get("cores")
    return int(cores) if isinstance(cores, (int, float)) and cores >= 1 else None


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
