"""The benchmark runs of a rerun: the workload's steps one after another, the whole list
`repeats` times (each repeat on a fresh database), under one time limit."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from django.conf import settings

from runner import process, workloads
from runner.models import RerunStatus, VerificationRun
from runner.targets import Target
from runner.watch import Outcome, begin_step, watch


def step_name(step: str, repeat: int, repeats: int) -> str:
    """Each repeat's samples are stored apart: `insert`, or `insert#2` of several repeats."""
    return step if repeats == 1 else f"{step}#{repeat}"


def execute_repeats(
    run: VerificationRun,
    target: Target,
    spec: workloads.RerunSpec,
    *,
    header: str = "",
    before_repeat: Callable[[int], None] | None = None,
) -> Outcome:
    """Run the steps `run.repeats` times; the outcome's step_logs are the first repeat's (what a
    single-run judge reads), repeat_logs every repeat's."""
    steps = workloads.rerun_steps(spec)
    # One time limit for the whole rerun, however many steps and repeats it has.
    deadline = time.monotonic() + target.time_limit
    log = header
    repeat_logs: list[dict[str, str]] = []
    for repeat in range(1, run.repeats + 1):
        if before_repeat is not None:
            before_repeat(repeat)
        if run.repeats > 1:
            log += f"# rerun repeat={repeat} of {run.repeats}\n"
        outcome = _execute_steps(run, target, spec, steps, deadline, repeat, log)
        log += outcome.log
        if outcome.status != RerunStatus.SUCCEEDED:
            return replace(
                outcome,
                log=log,
                step_logs=repeat_logs[0] if repeat_logs else outcome.step_logs,
                repeat_logs=[*repeat_logs, outcome.step_logs],
            )
        repeat_logs.append(outcome.step_logs)
        VerificationRun.objects.filter(pk=run.pk).update(repeats_done=repeat, log=log)
    return Outcome(
        RerunStatus.SUCCEEDED, "", log, step_logs=repeat_logs[0], repeat_logs=repeat_logs
    )


def _execute_steps(
    run: VerificationRun,
    target: Target,
    spec: workloads.RerunSpec,
    steps: list[workloads.Step],
    deadline: float,
    repeat: int,
    log_before: str,
) -> Outcome:
    logs: dict[str, str] = {}
    for index, step in enumerate(steps, 1):
        name = step_name(step.name, repeat, run.repeats)
        begin_step(run, name, index, len(steps), step.description, repeat=(repeat, run.repeats))
        try:
            outcome = watch(
                run, process.start(step.arguments, cwd=str(settings.RERUN_WORK_DIR)),
                time_limit=target.time_limit, deadline=deadline, step=name,
            )  # fmt: skip
        except OSError as error:
            outcome = Outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}", "")
        finally:
            remove_scratch(spec)
        logs[step.name] = outcome.log
        joined = _joined_log(steps, logs)
        if outcome.status != RerunStatus.SUCCEEDED:
            return replace(outcome, log=joined, step_logs=logs)
        VerificationRun.objects.filter(pk=run.pk).update(log=log_before + joined)
    return Outcome(RerunStatus.SUCCEEDED, "", _joined_log(steps, logs), step_logs=logs)


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


def remove_scratch(spec: workloads.RerunSpec) -> None:
    url = spec.plan.db_url
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(spec.scratch_dir, ignore_errors=True)
