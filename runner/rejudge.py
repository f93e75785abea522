"""Stored reruns judged again by the judge their track has now, from the output they stored.

A judge that improves must not leave the verdicts of the one before it on the board: the classic
judge compared the first and last reports of each curve until 24 Nov 2026, and came out "not
reproduced" for true claims that it now reproduces (README "What a rerun's verdict means").
`manage.py rerun_rejudge` runs this over every finished rerun; a deploy runs it after `migrate`
(docker-compose.yml), and a rerun whose verdict stands is left as it is.

Only what the stored output holds is judged again: a crash-recovery rerun's figures come from
its procedure's own record, which is judged once, when it finishes.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from runner.judge import RERUNS
from runner.judge.rerun import MEMORY_UNBOUNDED, NotPlannable, Step
from runner.models import RerunStatus, VerificationRun
from runner.services import RerunRefused, spec_of, target_named
from runner.verdicts import entry_verification_refresh, rerun_finish
from runner.watch import Outcome

logger = logging.getLogger(__name__)

REPEAT_LINE = re.compile(r"^# rerun repeat=\d+ of \d+\n", re.MULTILINE)
STEP_LINE = re.compile(r"^# rerun step=(\S+) \(\d+ of \d+\): .*\n", re.MULTILINE)
BENCHMARK_START = "# iibench-c "


@dataclass(frozen=True)
class Rejudged:
    run_id: int
    submission_id: int
    before: str
    after: str
    message: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def stored_repeat_logs(log: str, repeats: int, steps: list[Step]) -> list[dict[str, str]]:
    """Each repeat's step outputs, read back from a rerun's stored log (runner/benchmark_runs
    writes it: a header, then `# rerun repeat=N of M` before each repeat when there are several,
    and `# rerun step=NAME (...)` before each step when there are several)."""
    parts = REPEAT_LINE.split(log)
    repeat_texts = parts[1:] if repeats > 1 else [parts[0]]
    found = []
    for text in repeat_texts:
        if len(steps) == 1:
            start = text.find(BENCHMARK_START)
            found.append({steps[0].name: text[start:] if start >= 0 else text})
            continue
        pieces = STEP_LINE.split(text)
        found.append(dict(zip(pieces[1::2], pieces[2::2], strict=True)))
    return found


def _unbounded(run: VerificationRun) -> bool:
    return isinstance(run.result, dict) and bool(run.result.get(MEMORY_UNBOUNDED))


def rerun_rejudge(*, run: VerificationRun) -> Rejudged | None:
    """Judge a finished rerun again and store the verdict; None when it cannot be (it did not
    succeed, its target is no longer configured, or its output is not all there)."""
    if run.status != RerunStatus.SUCCEEDED or not run.verdict:
        return None
    track = run.submission.contest.track
    rerun = RERUNS[track.workload]
    if rerun.procedure == "crash":
        return None
    try:
        target = target_named(run.target)
        spec = spec_of(run, target, Path(settings.RERUN_WORK_DIR))
        steps = rerun.steps(spec)
    except (RerunRefused, NotPlannable):
        return None
    logs = stored_repeat_logs(run.log, run.repeats, steps)
    if len(logs) != run.repeats or any(set(repeat) != {s.name for s in steps} for repeat in logs):
        return None
    before, finished_at = _judgement(run), run.finished_at
    # What the worker said of the run that its log does not (no memory cgroup), as judged then.
    kept = {MEMORY_UNBOUNDED: run.result[MEMORY_UNBOUNDED]} if _unbounded(run) else {}
    outcome = Outcome(
        RerunStatus.SUCCEEDED, "", run.log, step_logs=logs[0], repeat_logs=logs, result=kept
    )
    try:
        with transaction.atomic():
            judged = rerun_finish(run, outcome, spec, track=track, kind=run.kind)
            if judged.status != RerunStatus.SUCCEEDED:
                # The judge could not read it now: the stored verdict stays, untouched.
                raise _Undone(None)
            if _judgement(judged) == before:
                # The same judgement: nothing is written, the board is not moved on.
                raise _Undone(Rejudged(run.pk, run.submission_id, run.verdict, run.verdict, ""))
            VerificationRun.objects.filter(pk=run.pk).update(finished_at=finished_at)
            entry_verification_refresh(submission_id=run.submission_id)
    except _Undone as undone:
        return undone.result
    return Rejudged(run.pk, run.submission_id, before[0], judged.verdict, judged.message)


def _judgement(run: VerificationRun) -> tuple:
    return (run.verdict, run.message, run.ratio, run.rows_done, run.rate, run.result)


class _Undone(Exception):
    """The re-judging's writes are rolled back; `result` is what rerun_rejudge answers."""

    def __init__(self, result: Rejudged | None):
        super().__init__()
        self.result = result


def reruns_rejudge(*, run_ids: list[int] | None = None) -> list[Rejudged]:
    """Every finished rerun (or those named) judged again, oldest first."""
    runs = VerificationRun.objects.filter(status=RerunStatus.SUCCEEDED).exclude(verdict="")
    if run_ids:
        runs = runs.filter(pk__in=run_ids)
    found = []
    for run in runs.select_related("submission__contest").order_by("pk"):
        try:
            rejudged = rerun_rejudge(run=run)
        except Exception:
            # The site's start runs this: one stored run the judge trips on must not keep it
            # from starting, nor the other runs from being judged. Its verdict stays.
            logger.exception("Rerun %s could not be judged again; its verdict stays", run.pk)
            continue
        if rejudged is not None:
            found.append(rejudged)
    return found
