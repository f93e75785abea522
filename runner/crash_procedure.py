"""The crash procedure of a rerun (a track whose rerun declares a CrashPlan): a private server of its own, a throttled insert killed
with SIGKILL at a row count, a restart on the same data timed until the table answers."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.conf import settings

from runner import process, servers
from runner.judge.rerun import CrashPlan, RerunSpec
from runner.models import RerunStatus, VerificationRun
from runner.targets import Target
from runner.watch import Outcome, beat_and_check_cancel, begin_step, stopped_outcome, watch


class _Journal:
    """The crash-recovery rerun's log: its own `# rerun` lines around the benchmark's output."""

    def __init__(self, run: VerificationRun):
        self.run = run
        self.text = io.StringIO()

    def add(self, text: str) -> None:
        self.text.write(text if text.endswith("\n") else text + "\n")
        VerificationRun.objects.filter(pk=self.run.pk).update(log=self.text.getvalue())

    def outcome(self, status: str, message: str, **kwargs) -> Outcome:
        return Outcome(status, message, self.text.getvalue(), **kwargs)


RECOVERY_STEPS = 3


@dataclass
class _Crash:
    """What the SIGKILL left: where the run was and what it knew was committed."""

    rows_at_crash: int
    insert_rate: float
    pids: list[int]
    rows_committed: int = 0


def execute_recovery(
    run: VerificationRun,
    target: Target,
    spec: RerunSpec,
    crash_plan: Callable[[dict, int], CrashPlan],
    *,
    server_settings: dict[str, str] | None = None,
    memory_limit: int = 0,
) -> Outcome:
    crash = crash_plan(spec.figures, run.rows_target)
    deadline = time.monotonic() + target.time_limit
    config = servers.server_config(target.server, spec.plan.engine)
    journal = _Journal(run)
    for folder in servers.remove_leftovers(config.base_dir):
        journal.add(f"# rerun removed a private server left by a killed worker: {folder}")
    try:
        with servers.PrivateServer(
            config, label=f"r{run.pk}", settings=server_settings, memory_limit=memory_limit
        ) as server:
            journal.add(server.privilege_lines())
            procedure = _Procedure(run, target, server, journal, deadline)
            return procedure.crash_and_recover(spec, crash)
    except servers.ServerError as error:
        return journal.outcome(RerunStatus.FAILED, str(error))


@dataclass
class _Procedure:
    """One crash-recovery rerun on its private server: what every step works with."""

    run: VerificationRun
    target: Target
    server: servers.PrivateServer
    journal: _Journal
    deadline: float

    def crash_and_recover(self, spec: RerunSpec, crash: CrashPlan) -> Outcome:
        run, server, journal = self.run, self.server, self.journal
        kind = server.config.kind
        begin_step(run, "server", 1, RECOVERY_STEPS, f"a private {kind} server starts")
        server.initialize()
        server.start()
        stopped = self.wait_until_answering(table=False)
        if stopped:
            return self.stopped(stopped)
        server.create_database()
        journal.add(
            f"# rerun step=server: private {kind} server pid={server.pid} port={server.port} "
            f"dir={server.root}"
        )
        read_back = server.read_settings(list(server.settings))
        VerificationRun.objects.filter(pk=run.pk).update(settings=read_back)
        for key, value in read_back.items():
            journal.add(f"# rerun setting {key}={value}")
        crashed = self.insert_until_crash(spec, crash)
        if isinstance(crashed, Outcome):
            return crashed
        return self.recover(crashed)

    def insert_until_crash(self, spec: RerunSpec, crash: CrashPlan) -> Outcome | _Crash:
        """The throttled run; SIGKILL to the server once a report reaches the crash row count.
        Returns what the crash left, or the outcome that ended the rerun before it."""
        run, target, server, journal = self.run, self.target, self.server, self.journal
        begin_step(
            run, "insert", 2, RECOVERY_STEPS,
            f"inserts at {crash.max_rate:,} rows/s; the server is killed at {crash.crash_at_rows:,} rows",
        )  # fmt: skip
        crashes: list[_Crash] = []

        def crash_when_due(report: tuple[int, float, float, float]) -> bool:
            rows, _, _, cumulative_rate = report
            if crashes or rows < crash.crash_at_rows:
                return False
            crashes.append(_Crash(rows, cumulative_rate, server.crash()))
            return True

        arguments = crash.insert_arguments(replace(spec.plan, db_url=server.url))
        journal.add(f"# rerun step=insert (2 of {RECOVERY_STEPS}): the benchmark's output")
        try:
            outcome = watch(
                run, process.start(arguments, cwd=server.root, env=server.client_environment()),
                time_limit=target.time_limit,
                deadline=self.deadline, step="insert", on_report=crash_when_due,
            )  # fmt: skip
        except OSError as error:
            return journal.outcome(RerunStatus.FAILED, f"The benchmark could not start: {error}")
        journal.add(outcome.log)
        if outcome.status in (RerunStatus.CANCELLED, RerunStatus.TIMED_OUT):
            return self.stopped(outcome.status)
        if not crashes:
            # The benchmark ended before the crash point: its own failure, not the one we caused.
            message = outcome.message or f"The benchmark ended before {crash.crash_at_rows:,} rows."
            return journal.outcome(RerunStatus.FAILED, message)
        crashed = crashes[0]
        pids = " ".join(str(pid) for pid in crashed.pids)
        journal.add(
            f"# rerun crash: SIGKILL to the {server.config.kind} server (pids {pids}) at "
            f"{crashed.rows_at_crash:,} rows; the benchmark lost its connection, as expected"
        )
        crashed.rows_committed = _summary_rows(outcome.log, default=crashed.rows_at_crash)
        return crashed

    def recover(self, crashed: _Crash) -> Outcome:
        run, server, journal = self.run, self.server, self.journal
        begin_step(
            run, "recovery", 3, RECOVERY_STEPS,
            "the server restarts on the same data; timing until the table answers",
        )  # fmt: skip
        log_before = len(server.log_text(limit=10**9))
        started = time.monotonic()
        server.start()
        stopped = self.wait_until_answering(table=True)
        if stopped:
            return self.stopped(stopped)
        seconds = time.monotonic() - started
        rows_found = server.count_rows()
        result = {
            "server": server.config.kind,
            "engine": _engine_of(journal.text.getvalue(), server.config.kind),
            "insert_rate": crashed.insert_rate,
            "rows_at_crash": crashed.rows_at_crash,
            "rows_committed": crashed.rows_committed,
            "rows_found": rows_found,
            "recovery_seconds": seconds,
            "crashed_pids": crashed.pids,
            "restarted_pid": server.pid,
            "summary": f"recovered in {seconds:,.2f} s, {rows_found:,} rows found",
        }
        journal.add(
            f"# rerun step=recovery: restarted pid={server.pid}; the table answered after "
            f"{seconds:.3f} s; {rows_found:,} rows found\n# rerun server log since the restart:\n"
            + server.log_text(limit=10**9)[log_before:][-20_000:]
        )
        return journal.outcome(RerunStatus.SUCCEEDED, "", result=result)

    def wait_until_answering(self, *, table: bool) -> str | None:
        return self.server.wait_until_answering(
            deadline=self.deadline,
            table=table,
            beat=lambda: beat_and_check_cancel(self.run),
            beat_seconds=settings.RERUN_HEARTBEAT_SECONDS,
        )

    def stopped(self, status: str) -> Outcome:
        # The caller's `with` removes the server on the way out; the message says it will be.
        outcome = stopped_outcome(
            status,
            self.target.time_limit,
            "",
            f"the private {self.server.config.kind} server was stopped and removed",
        )
        return self.journal.outcome(outcome.status, outcome.message)


_SUMMARY_ROWS = re.compile(r"^# summary .*?\brows=(\d+)", re.MULTILINE)
_ENGINE = re.compile(r"^# param engine=(\S+)", re.MULTILINE)


def _summary_rows(log: str, default: int) -> int:
    """The rows the benchmark knew were committed: its summary, printed even when it fails."""
    found = _SUMMARY_ROWS.search(log)
    return int(found.group(1)) if found else default


def _engine_of(log: str, server_kind: str) -> str:
    if server_kind == "postgresql":
        return "PostgreSQL"
    found = _ENGINE.search(log)
    return found.group(1) if found else "InnoDB"
