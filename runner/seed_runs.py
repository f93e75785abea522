"""The seeds' comparisons run on this host (`manage.py reproduce_seeds`): each engine of each
comparison (submissions/tracks/reproduced.py) on a private server of its own (runner/servers.py,
MyRocks' plugin loaded when it is asked), the C benchmark inserting rows/k rows with the cache
scaled 1/k, its log read by the registry's parser, and the figures stored beside the published
ones (contests/reference_rows.reproduction_store). PostgreSQL's, MyISAM's and Aria's server runs
in a memory cgroup of the seed host's memory scaled 1/k (the plan's `page_cache`), whose limit
is read back and stored; where none can be made the run is still made, and stored saying its
page cache was not bounded. One run at a time: they share the host."""

from __future__ import annotations

import io
import os
import socket
import subprocess  # the benchmark runs with an argument list, never a shell  # nosec B404
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings

from runner import servers
from runner.host import this_host
from submissions.contests.reference_rows import reproduction_store
from submissions.logparse.errors import LogError
from submissions.logparse.parse import parse_log
from submissions.models import SeedReproduction
from submissions.tracks.reproduced import (
    BY_KEY,
    COMPARISONS,
    EngineRun,
    Measured,
    engine_runs,
    measured_from_reports,
)

# Commits cost a disk flush per 1,000 rows otherwise, which on a shared VM measures the disk's
# queue rather than the engine: both families flush their log once a second, as the seeds'
# claims (innodb_flush_log_at_trx_commit=2) did.
RELAXED_DURABILITY = {
    "mariadb": {"innodb_flush_log_at_trx_commit": "2", "rocksdb_flush_log_at_trx_commit": "2"},
    "postgresql": {"synchronous_commit": "off"},
}
START_SECONDS = 120


@dataclass(frozen=True)
class ServerRun:
    """What one run on its private server gave: the figures (None and why, when it failed) and
    the memory limit read back from the server's cgroup (None and why, when it had none)."""

    measured: Measured | None
    failure: str = ""
    memory_limit: int | None = None
    no_cgroup: str = ""


@dataclass(frozen=True)
class RunOutcome:
    run: EngineRun
    reproduction: SeedReproduction
    seconds: float


def host_name() -> str:
    return os.environ.get("REPRODUCE_SEEDS_HOST") or socket.gethostname()


def load_average() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def server_settings(run: EngineRun) -> dict[str, str]:
    relaxed = dict(RELAXED_DURABILITY[run.server_kind])
    if run.engine != "ROCKSDB":
        relaxed.pop("rocksdb_flush_log_at_trx_commit", None)
    return {**relaxed, **run.memory_settings()}


def benchmark_arguments(run: EngineRun, url: str) -> list[str]:
    arguments = [str(settings.IIBENCH_BINARY), "--db", url, "--rows", str(run.rows),
                 "--report-every", str(run.report_every), "--seed", "1"]  # fmt: skip
    if run.benchmark_engine:
        arguments += ["--engine", run.benchmark_engine]
    if run.delete_after:
        arguments += ["--delete-after", str(run.delete_after)]
    if run.query_threads:
        arguments += ["--query-threads", str(run.query_threads)]
    return arguments


def measured_from_log(text: str, seed_rows: int) -> Measured:
    """The run's figures, its log read as an uploaded one is."""
    series = parse_log(io.BytesIO(text.encode())).series
    return measured_from_reports(
        series.rows, series.seconds, series.interval_rate, series.queries, seed_rows=seed_rows
    )


def run_one(run: EngineRun, timeout: float) -> ServerRun:
    """The run on a private server of its own, in a memory cgroup when its plan has one."""
    config = servers.server_config(run.server_kind, run.engine)
    memory_limit = run.page_cache.limit if run.page_cache is not None else 0
    limit, no_cgroup = None, ""
    try:
        with servers.PrivateServer(
            config, f"seeds-{run.comparison}", server_settings(run), memory_limit=memory_limit
        ) as db:
            if db.cgroup is not None:
                limit = db.cgroup.limit_read_back()
            else:
                no_cgroup = db.cgroup_note
            measured, failure = _benchmark(db, run, timeout)
    except servers.ServerError as error:
        measured, failure = None, str(error)
    return ServerRun(measured, failure, limit, no_cgroup)


def _benchmark(
    db: servers.PrivateServer, run: EngineRun, timeout: float
) -> tuple[Measured | None, str]:
    """(the figures, "") or (None, why it failed)."""
    db.initialize()
    db.start()
    if db.wait_until_answering(deadline=time.monotonic() + START_SECONDS):
        return None, "the private server did not answer"
    db.create_database()
    try:
        done = subprocess.run(  # noqa: S603 - the project's own binary, an argument list  # nosec B603
            benchmark_arguments(run, db.url),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, **db.client_environment()},  # its password, not in argv
        )
    except subprocess.TimeoutExpired:
        return None, f"the benchmark ran past {timeout:.0f} s and was stopped"
    if done.returncode != 0:
        return None, f"the benchmark failed: {done.stderr.strip()[-400:] or 'no message'}"
    try:
        return measured_from_log(done.stdout, BY_KEY[run.comparison].seed_rows), ""
    except (LogError, ValueError) as error:
        return None, f"its log could not be read: {error}"


def seeds_reproduce(
    *,
    scale: int,
    comparisons: Sequence[str] = (),
    engines: Sequence[str] = (),
    timeout: float = 1800,
    say: Callable[[str], None] = print,
) -> list[RunOutcome]:
    """Every engine run of the comparisons asked (all by default) at 1/`scale`, one after
    another, each stored as it ends (a failed one with its reason)."""
    unknown = [key for key in comparisons if key not in BY_KEY]
    if unknown:
        raise ValueError(f"no comparison {', '.join(unknown)}: the seeds' are {', '.join(BY_KEY)}")
    host, drive_kind = host_name(), str(this_host().get("drive_kind") or "")
    outcomes = []
    for comparison in COMPARISONS:
        if comparisons and comparison.key not in comparisons:
            continue
        for run in engine_runs(comparison, scale, engines):
            before = load_average()
            cgroup = (
                f", memory cgroup {run.page_cache.limit // 1024:,} kB"
                if run.page_cache is not None
                else ""
            )
            say(f"{comparison.key}: {run.engine}, {run.rows:,} rows, {run.cache_key}="
                f"{run.cache_bytes // 1024:,} kB{cgroup} ({before})")  # fmt: skip
            started = time.monotonic()
            ran = run_one(run, timeout)
            elapsed = time.monotonic() - started
            reproduction = reproduction_store(
                run=run,
                measured=ran.measured,
                host=host,
                drive_kind=drive_kind,
                load=f"{before}; after: {load_average()}",
                message=ran.failure,
                memory_limit=ran.memory_limit,
                no_cgroup=ran.no_cgroup,
            )
            say(f"  {_summary(reproduction)} in {elapsed:.0f} s")
            if run.page_cache is not None:
                say(f"  {reproduction.memory_limit}")
            outcomes.append(RunOutcome(run, reproduction, elapsed))
    return outcomes


def _summary(reproduction: SeedReproduction) -> str:
    if reproduction.status != "completed":
        return f"failed: {reproduction.message}"
    query = (
        f", a query {reproduction.query_seconds:.3f} s"
        if reproduction.query_seconds is not None
        else ""
    )
    return (
        f"terminal {reproduction.terminal_rate or 0:,.0f} rows/s, average "
        f"{reproduction.average_rate or 0:,.0f} rows/s{query}"
    )
