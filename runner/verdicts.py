"""The verdict of a finished rerun: its output read back with the registry's parser, measured
in the entry's track-figure keys and compared with the claim (compare.py, compare_tracks.py)."""

from __future__ import annotations

import io

from django.utils import timezone

from runner import measure, workloads
from runner.compare import REPRODUCED, Comparison, compare_runs
from runner.compare_tracks import (
    RecoveryFigures,
    compare_bulk_load,
    compare_fifo,
    compare_key_types,
    compare_queries,
    compare_recovery,
)
from runner.models import RerunKind, RerunStatus, VerificationRun
from runner.watch import Outcome
from submissions.logparse import LogError, parse_log
from submissions.logparse.model import ParsedLog
from submissions.models import Submission
from submissions.series import unpack_columns
from submissions.services import contest_board_changed


def rerun_finish(
    run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec
) -> VerificationRun:
    run.refresh_from_db()
    run.status = outcome.status
    run.message = outcome.message
    run.log = outcome.log
    run.result = outcome.result
    run.finished_at = timezone.now()
    if outcome.status == RerunStatus.SUCCEEDED:
        _judge(run, outcome, spec)
    run.save()
    return run


def _judge(run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec) -> None:
    """Compare the finished rerun with the claim and mark the entry verified if reproduced.
    The claim is the entry's figures as the rerun started (spec.figures), the ones it was
    planned from."""
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
        comparison = judges[spec.workload](run, outcome, spec)
    except LogError as error:
        run.status = RerunStatus.FAILED
        run.message = f"The rerun's output could not be read: {error}"
        return
    run.verdict, run.ratio, run.message = comparison.verdict, comparison.ratio, comparison.message
    # TODO(issue 10, h1-tracks): the track's judge takes every repeat (outcome.repeat_logs),
    # the kind, scale and host_comparable, and names its own verdicts; until it lands the
    # first repeat is judged, and the run's kind and host are said here.
    run.message = f"{run.message} {_setup_sentence(run)}".strip()
    if run.kind == RerunKind.COMPARISON:
        run.message = f"Comparison run, never a verification: {run.message}"
        return
    if comparison.verdict == REPRODUCED:
        Submission.objects.filter(pk=submission.pk).update(verified=True)
        contest_board_changed(contest_id=submission.contest_id)


def _setup_sentence(run: VerificationRun) -> str:
    runs = f"{run.repeats} run{'s' if run.repeats > 1 else ''}"
    host = run.host.get("comparison", "") if isinstance(run.host, dict) else ""
    return f"Scale 1/{run.scale}, {runs} on {run.target}. {host}".strip()


def _parse(log: str) -> ParsedLog:
    return parse_log(io.BytesIO(log.encode()))


def _progress_from(run: VerificationRun, parsed: ParsedLog) -> None:
    rows, seconds = measure.rows_and_seconds(parsed)
    run.rows_done = int(rows[-1]) if len(rows) else 0
    run.rate = run.rows_done / float(seconds[-1]) if len(rows) and seconds[-1] > 0 else None


def _judge_classic(run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec) -> Comparison:
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


def _judge_fifo(run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec) -> Comparison:
    parsed = _parse(outcome.step_logs["fifo"])
    _progress_from(run, parsed)
    submission = run.submission
    scale = workloads.fifo_scale(spec.figures, spec.claimed_rows, run.rows_target)
    run.result = measure.fifo_figures(parsed, scale)
    return compare_fifo(
        claimed=spec.figures,
        scale=scale,
        rerun_terminal_rate=run.result["terminal_insert_rate"],
        rerun_deletes_start=run.result["deletes_start_row"],
        tolerance=submission.contest.rerun_tolerance,
    )


def _judge_queries(run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec) -> Comparison:
    parsed = _parse(outcome.step_logs["queries"])
    _progress_from(run, parsed)
    run.result = measure.query_figures(parsed)
    return compare_queries(
        claimed=spec.figures,
        rerun_points=run.result["points"],
        tolerance=run.submission.contest.rerun_tolerance,
    )


def _judge_key_types(
    run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec
) -> Comparison:
    runs = {}
    for kind in workloads.KEY_TYPES:
        parsed = _parse(outcome.step_logs[kind])
        runs[kind] = measure.key_type_run(parsed)
        _progress_from(run, parsed)
    run.result = measure.key_type_figures(runs, spec.options.writers, spec.options.readers)
    return compare_key_types(
        claimed=spec.figures,
        rerun_ratios=run.result["ratios"],
        tolerance=run.submission.contest.rerun_tolerance,
        rerun_runs=runs,
    )


def _judge_bulk_load(
    run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec
) -> Comparison:
    figures = measure.load_figures(_parse(outcome.step_logs["load"]))
    if figures is None:
        raise LogError("the load printed no `# summary ... mode=load` line")
    run.rows_done, run.rate = figures.rows, figures.rows_per_s
    run.result = measure.load_result(figures)
    return compare_bulk_load(
        claimed=spec.figures,
        rerun=figures,
        tolerance=run.submission.contest.rerun_tolerance,
    )


def _judge_recovery(
    run: VerificationRun, outcome: Outcome, spec: workloads.RerunSpec
) -> Comparison:
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
        claimed=spec.figures,
        rerun=figures,
        tolerance=run.submission.contest.rerun_tolerance,
    )
