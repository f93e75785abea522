"""A rerun on a private server: started with the entry's allowed settings (memory scaled with
the run), the settings in effect read back from the server into the log and the run, then the
benchmark `repeats` times, each on a fresh database."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from django.conf import settings

from runner import servers
from runner.benchmark_runs import Resume, execute_repeats
from runner.models import RerunStatus, VerificationRun
from runner.targets import Target
from runner.watch import Outcome, beat_and_check_cancel, begin_step, stopped_outcome
from submissions.setup.scaling import RerunSettings

if TYPE_CHECKING:  # the plan's types, wherever the workloads keep them
    from submissions.tracks.rerun import RerunSpec, Step


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


def server_label(run_id: int) -> str:
    return f"v{run_id}"


def execute_on_private_server(
    run: VerificationRun,
    target: Target,
    spec: RerunSpec,
    plan_steps: Callable[[RerunSpec], list[Step]],
    asked: RerunSettings,
    resume: Resume | None = None,
) -> Outcome:
    config = servers.server_config(target.server, spec.plan.engine)
    # The data of a rerun that may still be resumed stays for its next worker.
    pending = VerificationRun.objects.filter(
        status__in=(RerunStatus.QUEUED, RerunStatus.RUNNING)
    ).values_list("pk", flat=True)
    keep = frozenset(server_label(pk) for pk in pending)
    header = "".join(
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
            read_back = server.read_settings(list(asked.applied))
            VerificationRun.objects.filter(pk=run.pk).update(
                settings=read_back, setting_changes=asked.changes
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
            return execute_repeats(
                run,
                target,
                on_server,
                plan_steps(on_server),  # the steps' command lines name the server's URL
                header=header,
                before_repeat=lambda _: server.create_database(fresh=True),
                resume=resume,
            )
    except servers.ServerError as error:
        return Outcome(RerunStatus.FAILED, str(error), header)


def _deadline(target: Target) -> float:
    return time.monotonic() + target.time_limit
