"""The reference runs beside a verification's repeats and a calibration's runs: a fixed
workload (REFERENCE_DECLARED at 1/REFERENCE_SCALE: 100,000 rows) on a private server of its own, started once per job, run before each repeat and after the last (R C R C R C R). Their
rates say how fast this host was around each repeat (runner/judge/host_speed.py); a quiet
host's calibration measures the same references, its quiet rate.

A reference is seconds long, so three repeats cost four of them and one more server start. A reference that fails is said in the log and leaves the job's speed
unknown, never the job failed."""

from __future__ import annotations

import os
import subprocess  # only for TimeoutExpired; process.py starts the benchmark  # nosec B404
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from runner import process, servers
from runner.host import this_host
from runner.judge.classic import STEP, steps
from runner.judge.host_speed import REFERENCE_CLAIMED_ROWS, REFERENCE_DECLARED, REFERENCE_SCALE
from runner.judge.memory_budget import LEAST_CONNECTION_CAP
from runner.judge.rerun import RerunSpec, RunPlan, curve, read_output
from runner.judge.scaling import rerun_settings, scaled_rows
from runner.option_tables import described_options
from runner.targets import Target
from submissions.logparse import LogError


def reference_rows() -> int:
    return settings.RERUN_REFERENCE_ROWS or scaled_rows(REFERENCE_CLAIMED_ROWS, REFERENCE_SCALE)


def reference_label() -> str:
    """For people, in a verdict."""
    return f"{reference_rows():,} rows each on a private server with fixed settings"


def reference_settings(
    target: Target,
    config: servers.ServerConfig,
    declared: dict[str, str],
    scale: int,
    *,
    logged: dict[str, str] | None = None,
):
    """The settings a reference (or a calibration's claim, with the settings its log names)
    runs with on `target`'s server: `declared` scaled 1/`scale` by the scaling rule, as a
    verification's would be."""
    return rerun_settings(
        declared,
        entry_family=target.family,
        server_family=target.family,
        scale=scale,
        memory_gb=0,
        host_memory_gb=float(this_host().get("memory_gb") or 0),
        logged=logged,
        options=described_options(config),
        free_memory=0,
        connection_cap=max(
            LEAST_CONNECTION_CAP, target.writers + target.readers + target.query_threads + 16
        ),
    )


@dataclass
class ReferenceRuns:
    """The references of one job, as they ran: their rates (rows/s), and the lines the job's
    log carries for them."""

    rows: int
    rates: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"rows": self.rows, "rates": [round(each, 1) for each in self.rates]}


class ReferenceServer:
    """A private server for a job's references (a context manager, like PrivateServer), and
    `measure()` to run one reference on it. `join(pids)`: puts the server's processes and each
    reference's benchmark in the job's CPU weight group, if any."""

    def __init__(
        self,
        target: Target,
        label: str,
        *,
        deadline: float,
        join: Callable[[list[int]], None] | None = None,
    ):
        self.target = target
        self.config = servers.server_config(target.server)
        self.asked = reference_settings(target, self.config, REFERENCE_DECLARED, REFERENCE_SCALE)
        self.label = label
        self.deadline = deadline
        self.join = join or (lambda pids: None)
        self.runs = ReferenceRuns(rows=reference_rows())
        self._server: servers.PrivateServer | None = None
        self._failed = ""

    def __enter__(self) -> ReferenceServer:
        server = servers.PrivateServer(
            self.config, label=self.label, settings=self.asked.applied,
            memory_limit=self.asked.memory_limit,
        )  # fmt: skip
        try:
            server.__enter__()
        except servers.ServerError as error:
            self._failed = f"the reference server could not be made: {error}"
            return self
        self._server = server
        try:
            server.initialize()
            server.start()
            if server.wait_until_answering(deadline=self.deadline) is not None:
                self._failed = "the reference server did not answer in time"
            else:
                self.join(server.all_pids())
        except servers.ServerError as error:
            self._failed = f"the reference server did not start: {error}"
        return self

    def __exit__(self, *exc_info) -> None:
        if self._server is not None:
            self._server.__exit__(*exc_info)

    def measure(self) -> float | None:
        """Run one reference; its rate, or None (said in `runs.failures`)."""
        number = len(self.runs.rates) + len(self.runs.failures) + 1
        if self._failed or self._server is None:
            return self._failure(number, self._failed or "no reference server")
        try:
            self._server.create_database(fresh=True)
            rate = self._one_run()
        except (servers.ServerError, LogError, ReferenceFailed) as error:
            return self._failure(number, str(error))
        self.runs.rates.append(rate)
        self.runs.lines.append(
            f"# rerun reference {number}: {self.runs.rows:,} rows at {rate:,.0f} rows/s\n"
        )
        return rate

    def _failure(self, number: int, why: str) -> None:
        self.runs.failures.append(why)
        self.runs.lines.append(f"# rerun reference {number}: not measured: {why}\n")
        return None

    def _one_run(self) -> float:
        server = self._server
        plan = RunPlan(
            binary=str(settings.IIBENCH_BINARY), db_url=server.url, rows=self.runs.rows,
            rows_per_commit=1_000, rows_per_insert=1_000, seed=1, engine="InnoDB",
        )  # fmt: skip
        spec = RerunSpec(plan=plan, figures={}, claimed_rows=REFERENCE_CLAIMED_ROWS)
        arguments = steps(spec)[0].arguments
        work_dir = Path(settings.RERUN_WORK_DIR)
        work_dir.mkdir(parents=True, exist_ok=True)
        child = process.start(arguments, cwd=str(work_dir), env=server.client_environment())
        self.join([child.pid])
        limit = max(1.0, min(settings.RERUN_REFERENCE_TIME_LIMIT, self.deadline - time.monotonic()))
        try:
            output, errors = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
            raise ReferenceFailed(f"it did not finish within {limit:.0f} s") from None
        except BaseException:  # a time limit, a signal: no benchmark runs on unwatched
            process.stop(child, settings.RERUN_KILL_GRACE_SECONDS)
            raise
        if child.returncode != 0:
            last = (errors.decode(errors="replace").strip().splitlines() or ["no message"])[-1]
            raise ReferenceFailed(f"the benchmark failed (exit {child.returncode}): {last}")
        parsed = read_output({STEP: output.decode(errors="replace")}, spec=spec, rows_target=0)
        rows, seconds = curve(parsed.logs[STEP])
        if not len(rows) or seconds[-1] <= 0:
            raise ReferenceFailed("the benchmark reported no rows")
        return float(rows[-1]) / float(seconds[-1])


class ReferenceFailed(Exception):
    """One reference run failed (the message says how)."""


def host_cores() -> int:
    return os.cpu_count() or 1
