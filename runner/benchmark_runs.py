"""The benchmark runs of a rerun: the workload's steps one after another, the whole list
`repeats` times (each repeat on a fresh database), under one time limit."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from runner import process
from runner.activity import (
    busiest_cpu,
    longest_wait,
    other_io_line,
    read_disk_bytes,
    thread_times,
)
from runner.host import read_cpu_times, steal_cores
from runner.judge.rerun import client_wait_line, cpu_wait_line, critical_cpu_line, steal_line
from runner.models import RerunStatus, VerificationRun
from runner.targets import Target
from runner.watch import Outcome, begin_step, watch

if TYPE_CHECKING:  # the plan's types, wherever the workloads keep them
    from runner.judge.rerun import RerunSpec, Step


@dataclass(frozen=True)
class Resume:
    """Where an interrupted rerun stood: the repeat it was in, its log up to there (with the
    interrupted run's output, complete lines only) and the seconds of its last report."""

    repeat: int
    before: str  # the log before the interrupted run: header, earlier repeats
    interrupted: str  # the interrupted run's output, to its last complete line
    seconds: float


class NotResumable(Exception):
    """The interrupted rerun cannot continue where it stopped; the message says why."""


def resumable(steps: list[Step]) -> bool:
    """One benchmark run of inserts continues its table (--resume); several steps, a bulk
    load or a crash procedure start again instead."""
    return len(steps) == 1 and "--rows" in steps[0].arguments and "load" not in steps[0].arguments


def resume_point(run: VerificationRun, steps: list[Step]) -> Resume:
    """From what the interrupted worker stored: the log it saved with each report and the
    last sample of the repeat it was in."""
    if not resumable(steps):
        raise NotResumable(
            "The worker stopped, and a rerun of several steps (or a load) cannot be resumed "
            "where it stopped. Start a new rerun."
        )
    repeat = run.repeats_done + 1
    log = run.log if run.log.endswith("\n") else run.log.rsplit("\n", 1)[0] + "\n"
    started = log.rfind("# iibench-c ")
    name = step_name(steps[0].name, repeat, run.repeats)
    last = run.samples.filter(step=name).order_by("-rows").first()
    if started < 0 or last is None:
        raise NotResumable("The worker stopped before the run's first report: nothing to resume.")
    return Resume(repeat, log[:started], log[started:], last.seconds)


def continued_output(output: str) -> str:
    """A resumed run's output without the header the interrupted run printed already: from its
    `# resumed at` line on, less its column header and start time."""
    lines = output.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("# resumed at")), None)
    if start is None:
        return output  # it failed before resuming: its whole output says why
    return "".join(
        line
        for line in lines[start:]
        if not line.startswith("rows\t") and not line.startswith("# started ")
    )


def step_name(step: str, repeat: int, repeats: int) -> str:
    """Each repeat's samples are stored apart: `insert`, or `insert#2` of several repeats."""
    return step if repeats == 1 else f"{step}#{repeat}"


def execute_repeats(
    run: VerificationRun,
    target: Target,
    spec: RerunSpec,
    steps: list[Step],
    *,
    header: str = "",
    before_repeat: Callable[[int], None] | None = None,
    resume: Resume | None = None,
    server_io: Callable[[], int | None] | None = None,
    client_environment: dict[str, str] | None = None,
    join: Callable[[list[int]], None] | None = None,
    server_pids: Callable[[], list[int]] | None = None,
) -> Outcome:
    """Run the steps `run.repeats` times; the outcome's step_logs are the first repeat's (what a
    single-run judge reads), repeat_logs every repeat's. With `resume`, the repeats before
    resume.repeat are done, and that one continues its table. `server_io`: the private server's
    storage bytes so far (runner/activity.py), so each step's log says the other processes'.
    `client_environment`: the private server's password for the benchmark's environment (never
    its command line). `join`: given each benchmark's pid as it starts (the rerun's CPU weight
    group, runner/cpu_weight.py). `server_pids`: the private server's processes, whose threads'
    waits for a CPU each step's log states (`# rerun cpu wait`)."""
    # One time limit for the whole rerun, however many steps and repeats it has.
    deadline = time.monotonic() + target.time_limit
    log = header
    repeat_logs: list[dict[str, str]] = []
    for repeat in range(1, run.repeats + 1):
        if resume is not None and repeat < resume.repeat:
            continue
        continuing = resume if resume is not None and repeat == resume.repeat else None
        if continuing is not None:
            log = continuing.before
        else:
            if before_repeat is not None:
                before_repeat(repeat)
            if run.repeats > 1:
                log += f"# rerun repeat={repeat} of {run.repeats}\n"
        outcome = _execute_steps(
            run,
            target,
            spec,
            steps,
            deadline,
            repeat,
            log,
            continuing,
            server_io=server_io,
            client_environment=client_environment,
            join=join,
            server_pids=server_pids,
        )
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
    spec: RerunSpec,
    steps: list[Step],
    deadline: float,
    repeat: int,
    log_before: str,
    resume: Resume | None = None,
    *,
    server_io: Callable[[], int | None] | None = None,
    client_environment: dict[str, str] | None = None,
    join: Callable[[list[int]], None] | None = None,
    server_pids: Callable[[], list[int]] | None = None,
) -> Outcome:
    logs: dict[str, str] = {}
    for index, step in enumerate(steps, 1):
        name = step_name(step.name, repeat, run.repeats)
        begin_step(run, name, index, len(steps), step.description, repeat=(repeat, run.repeats))
        arguments, earlier = step.arguments, ""
        if resume is not None:
            arguments = [*arguments, "--resume", "--resume-seconds", f"{resume.seconds:.3f}"]
            earlier = resume.interrupted
        before = read_cpu_times()
        io_before = _io_sample(server_io)
        times_before = thread_times(server_pids()) if server_pids is not None else None
        started = time.monotonic()
        client_times: dict[str, tuple[int, int]] = {}
        try:
            child = process.start(
                arguments, cwd=str(settings.RERUN_WORK_DIR), env=client_environment
            )
            if join is not None:
                join([child.pid])
            outcome = watch(
                run,
                child,
                time_limit=target.time_limit, deadline=deadline, step=name,
                log_prefix=log_before + _joined_log(steps, logs) + earlier,
                on_exit=lambda pid, into=client_times: into.update(thread_times([pid])),
            )  # fmt: skip
        except OSError as error:
            outcome = Outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}", "")
        finally:
            # Only a step that ended gets here: a worker killed mid-run runs no `finally`,
            # and its table stays for the run to be resumed.
            remove_scratch(spec)
        # Resumed: one curve, the interrupted output then the resumed one past its header.
        logs[step.name] = earlier + (continued_output(outcome.log) if resume else outcome.log)
        stolen = steal_cores(before, read_cpu_times(), cores=os.cpu_count() or 1)
        if stolen is not None and outcome.status == RerunStatus.SUCCEEDED:
            logs[step.name] += steal_line(stolen)  # the judge counts it as other work
        if outcome.status == RerunStatus.SUCCEEDED:
            logs[step.name] += _other_io(io_before, _io_sample(server_io))
            if times_before is not None:
                logs[step.name] += _server_times(times_before, server_pids(), client_times, started)
        joined = _joined_log(steps, logs)
        if outcome.status != RerunStatus.SUCCEEDED:
            return replace(outcome, log=joined, step_logs=logs)
        VerificationRun.objects.filter(pk=run.pk).update(log=log_before + joined)
    return Outcome(RerunStatus.SUCCEEDED, "", _joined_log(steps, logs), step_logs=logs)


def _server_times(
    before: dict[str, tuple[int, int]],
    pids: list[int],
    client: dict[str, tuple[int, int]],
    started: float,
) -> str:
    """A step's `# rerun cpu wait` line (its server's longest wait for a CPU) and, where the
    benchmark's own threads were read as it exited, its `# rerun critical cpu` and `# rerun
    client wait` lines."""
    after = thread_times(pids)
    waited = longest_wait(
        {key: wait for key, (_, wait) in before.items()},
        {key: wait for key, (_, wait) in after.items()},
    )
    if waited is None:
        return ""
    wall = time.monotonic() - started
    said = cpu_wait_line(waited, wall)
    if client:
        ran = sum(cpu for cpu, _ in client.values()) / 1e9
        said += critical_cpu_line(ran, busiest_cpu(before, after))
        said += client_wait_line(sum(wait for _, wait in client.values()) / 1e9, wall)
    return said


def _io_sample(server_io: Callable[[], int | None] | None) -> tuple | None:
    """The machine's disk bytes, the server's own and the time, or None where either is not
    measured (no private server: the client's own I/O cannot be told from other processes')."""
    if server_io is None:
        return None
    machine, own = read_disk_bytes(), server_io()
    return None if machine is None or own is None else (machine, own, time.monotonic())


def _other_io(before: tuple | None, after: tuple | None) -> str:
    if before is None or after is None or after[2] <= before[2]:
        return ""
    own = after[1] - before[1]
    return other_io_line((after[0] - before[0]) - own, after[2] - before[2], own)


def _joined_log(steps: list[Step], logs: dict[str, str]) -> str:
    """One step's output as it is (a one-step rerun's log is the benchmark's own); several
    steps each under a `# rerun step=` line."""
    if len(steps) == 1:
        return next(iter(logs.values()), "")
    parts = []
    for index, step in enumerate(steps, 1):
        if step.name in logs:
            header = f"# rerun step={step.name} ({index} of {len(steps)}): {step.description}\n"
            parts.append(header + logs[step.name])
    return "".join(parts)


def remove_scratch(spec: RerunSpec) -> None:
    remove_scratch_files(db_url=spec.plan.db_url, scratch_dir=spec.scratch_dir)


def remove_scratch_files(*, db_url: str, scratch_dir: str) -> None:
    """A rerun's scratch: its SQLite file (with its journals) and its load directory."""
    if db_url.startswith("sqlite:///"):
        path = Path(db_url.removeprefix("sqlite:///"))
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    shutil.rmtree(scratch_dir, ignore_errors=True)
