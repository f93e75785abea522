"""A rerun on a private server: started with the entry's allowed settings (memory scaled with
the run), the settings in effect read back from the server into the log and the run, then the
benchmark `repeats` times, each on a fresh database; where the judge reads the host's speed, a
reference run on a server of its own before each repeat and after the last (issue 45); and the
servers and benchmark in a cgroup with a CPU weight above other work, where one can be made."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from django.conf import settings

from runner import servers
from runner.activity import server_io_bytes
from runner.benchmark_runs import Resume, execute_repeats
from runner.cpu_weight import CpuWeightGroup, cpu_weight_group
from runner.judge.rerun import MEMORY_UNBOUNDED
from runner.judge.scaling import RerunSettings
from runner.models import RerunStatus, VerificationRun
from runner.reference_runs import ReferenceServer, host_cores, reference_label
from runner.targets import Target
from runner.watch import Outcome, beat_and_check_cancel, begin_step, stopped_outcome

if TYPE_CHECKING:  # the plan's types, wherever the workloads keep them
    from runner.judge.rerun import RerunSpec, Step


def settings_lines(asked: RerunSettings, read_back: dict[str, str]) -> str:
    """The log's account of the settings: each as the server reports it after start (and as
    asked, where that differs), those applied under another name, then what was refused and
    why. A setting given to the server that it does not report is said to be so, never
    called unknown: only names the server lists are given to it."""
    lines = [f"# rerun setting note: {note}\n" for note in asked.notes]
    for key, value in asked.applied.items():
        if key not in read_back:
            lines.append(
                f"# rerun setting {key}: given to the server as {value!r}, which does not "
                "report it back\n"
            )
            continue
        differs = f" (asked {value})" if value and value != read_back[key] else ""
        lines.append(f"# rerun setting {key}={read_back[key]}{differs}\n")
    lines += [
        f"# rerun setting {declared}: applied as {name}\n"
        for declared, name in asked.renamed.items()
    ]
    lines += [f"# rerun setting refused: {message}\n" for message in asked.refused.values()]
    return "".join(lines)


def memory_text(size: int) -> str:
    """1.6 GB, 46 MB: a memory limit as the page says it."""
    return f"{size / (1 << 30):.1f} GB" if size >= 1 << 30 else f"{size / (1 << 20):.0f} MB"


def memory_limit_account(
    server: servers.PrivateServer, asked: RerunSettings, scale: int
) -> tuple[dict, str]:
    """What the run records of its server's memory limit (the limit read back from the cgroup
    after start, and the sentence the page shows), and why that memory is not the claim's RAM
    scaled 1/`scale` ("" when it is): a PostgreSQL server's data, and MyISAM's and Aria's,
    live in the page cache, which only its cgroup bounds (submissions/setup/page_cache.py)."""
    if server.cgroup is None:
        return {"memory_limit": f"no memory limit: {server.cgroup_note}"}, (
            f"no memory cgroup could be made for the private server ({server.cgroup_note}): its "
            f"page cache was not bounded to the claim's RAM scaled 1/{scale}"
        )
    limit = server.cgroup.limit_read_back()
    recorded = {
        "memory_limit": f"memory limit {memory_text(limit)} read back from the cgroup",
        "memory_limit_bytes": limit,
    }
    if not asked.ram_note:
        return recorded, (
            "the entry declared no RAM: the page cache could not be bounded to its RAM scaled "
            f"1/{scale}"
        )
    return recorded, ""


def server_label(run_id: int) -> str:
    return f"v{run_id}"


def execute_on_private_server(
    run: VerificationRun,
    target: Target,
    spec: RerunSpec,
    plan_steps: Callable[[RerunSpec], list[Step]],
    asked: RerunSettings,
    resume: Resume | None = None,
    *,
    references: bool = False,
) -> Outcome:
    """`references`: run the reference workload beside the repeats (not for a resumed rerun:
    the references before its interruption are gone with its worker)."""
    group, why_not = (
        cpu_weight_group(f"iibench-{server_label(run.pk)}")
        if settings.RERUN_CPU_WEIGHT
        else (None, "RERUN_CPU_WEIGHT is off")
    )
    weight = group.describe() if group is not None else f"none: {why_not}"
    try:
        return _on_private_server(
            run, target, spec, plan_steps, asked, resume,
            references=references and resume is None, group=group,
            header=f"# rerun cpu weight: {weight}\n",
        )  # fmt: skip
    finally:
        if group is not None:
            group.remove()


def _on_private_server(
    run: VerificationRun,
    target: Target,
    spec: RerunSpec,
    plan_steps: Callable[[RerunSpec], list[Step]],
    asked: RerunSettings,
    resume: Resume | None,
    *,
    references: bool,
    group: CpuWeightGroup | None,
    header: str,
) -> Outcome:
    join = group.add_all if group is not None else (lambda pids: None)
    config = servers.server_config(target.server, spec.plan.engine)
    # The data of a rerun that may still be resumed stays for its next worker.
    pending = VerificationRun.objects.filter(
        status__in=(RerunStatus.QUEUED, RerunStatus.RUNNING)
    ).values_list("pk", flat=True)
    keep = frozenset(server_label(pk) for pk in pending)
    header += "".join(
        f"# rerun removed a private server left by a killed worker: {folder}\n"
        for folder in servers.remove_leftovers(config.base_dir, keep=keep)
    )
    label = server_label(run.pk)
    try:
        with servers.PrivateServer(
            config,
            label=label,
            settings=asked.applied,
            reuse=resume is not None,
            memory_limit=asked.memory_limit,
        ) as server:
            if resume is not None and not server.reused:
                # Say what is known: the folder is not there, and why the run was queued
                # again; not a guess at what removed it.
                why = f" It was queued again because: {run.message}" if run.message else ""
                raise servers.ServerError(
                    f"Cannot resume: the private server's data directory is not on this host "
                    f"({config.base_dir}).{why} Start a new rerun."
                )
            begin_step(run, "server", 1, 1, f"a private {config.kind} server starts")
            if not server.reused:
                server.initialize()
            server.start()
            stopped = server.wait_until_answering(
                deadline=_deadline(target),
                beat=lambda: beat_and_check_cancel(run),
                beat_seconds=settings.RERUN_HEARTBEAT_SECONDS,
            )
            if stopped:
                return stopped_outcome(
                    stopped, target.time_limit, header, "the private server was removed"
                )
            join(server.all_pids())
            read_back = server.read_settings(list(asked.applied))
            limit_text, unbounded = memory_limit_account(server, asked, run.scale)
            run.host = {**(run.host or {}), **limit_text}
            VerificationRun.objects.filter(pk=run.pk).update(
                settings=read_back, setting_changes=asked.changes, host=run.host
            )
            header += (
                f"# rerun server: private {config.kind} pid={server.pid} port={server.port}\n"
                + server.privilege_lines()
                + settings_lines(asked, read_back)
            )
            if resume is not None:
                # The resumed log keeps its first header; this start is said where it happened.
                resume = replace(
                    resume,
                    interrupted=resume.interrupted
                    + f"# rerun restarted the private {config.kind} server on its data: "
                    f"pid={server.pid} port={server.port}\n",
                )
            on_server = replace(spec, plan=replace(spec.plan, db_url=server.url))
            with contextlib.ExitStack() as stack:
                beside = (
                    stack.enter_context(
                        ReferenceServer(target, f"{label}r", deadline=_deadline(target), join=join)
                    )
                    if references
                    else None
                )

                def before_repeat(_: int) -> None:
                    if beside is not None:
                        beside.measure()
                    server.create_database(fresh=True)

                outcome = execute_repeats(
                    run,
                    target,
                    on_server,
                    plan_steps(on_server),  # the steps' command lines name the server's URL
                    header=header,
                    before_repeat=before_repeat,
                    resume=resume,
                    server_io=lambda: server_io_bytes(server.pid),
                    client_environment=server.client_environment(),
                    join=join,
                    server_pids=server.all_pids,
                )
                if beside is not None:
                    outcome = _with_references(run, outcome, beside)
            if server.cgroup is not None and limit_text:
                # The data files' pages the server read and wrote, charged to its cgroup.
                cached = server.cgroup.page_cache()
                run.host = {**run.host, "page_cache_bytes": cached}
                VerificationRun.objects.filter(pk=run.pk).update(host=run.host)
            if unbounded and asked.in_page_cache:
                outcome = replace(outcome, result={**outcome.result, MEMORY_UNBOUNDED: unbounded})
            return outcome
    except servers.ServerError as error:
        return Outcome(RerunStatus.FAILED, str(error), header)


def _with_references(run: VerificationRun, outcome: Outcome, beside: ReferenceServer) -> Outcome:
    """The last reference (after the last repeat), the references' rates kept with the run's
    host (the judge reads them there, and a re-judge too), their lines at the log's end."""
    if outcome.status == RerunStatus.SUCCEEDED:
        beside.measure()
    runs = beside.runs
    run.host = {
        **(run.host or {}),
        "reference": {**runs.as_dict(), "label": reference_label(), "cores": host_cores()},
    }
    VerificationRun.objects.filter(pk=run.pk).update(host=run.host)
    return replace(outcome, log=outcome.log + "".join(runs.lines))


def _deadline(target: Target) -> float:
    return time.monotonic() + target.time_limit
