"""Why a PostgreSQL rerun's cliff moves: the test's rerun (runner/tests/servers/test_postgresql_cliff.py,
the 80 MB claim at 1/2: 250,000 rows in the rule's 50.5 MB cgroup, shared_buffers 10 MB) run
--runs times on fresh private servers, as the worker runs it (runner/servers.py), with what the
kernel and the server did at each report: the cgroup's memory.stat (cache, rss, shmem,
mapped_file, dirty, writeback, the file LRU lists), the server's own device reads (the sum of
/proc/PID/io read_bytes over its processes: the log's read columns count the whole device,
other jobs' I/O with it) and whether an autovacuum worker was running; at the end the server's
own counters (autovacuum and autoanalyze of the table, checkpoints). Prints one line per run:
where the rate's steepest fall and the log's reads (the judge's PostgreSQL cliff) placed it;
with --json every report's sample, with --logs every run's log. --buffer-misses counts
shared_buffers' misses through a connection of its own: a backend in the cgroup, whose memory
the table then lacks (its reads began 64-70% of the run in, the worker's 72-80%).

    .venv/bin/python bench/pg_cliff_probe.py [--runs 6] [--rows 250000] [--limit-mb 50.5]
        [--set backend_flush_after=256kB ...] [--buffer-misses] [--json FILE] [--logs DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.scaling_sweeps import BINARY, load  # noqa: E402
from runner.judge.classic import reads_cliff, shape_of  # noqa: E402
from runner.servers import PrivateServer, ServerConfig, descendants  # noqa: E402

MIB = 1 << 20
PAGE = 8192
STAT_KEYS = (
    "cache", "rss", "shmem", "mapped_file", "dirty", "writeback",
    "active_file", "inactive_file", "pgmajfault",
)  # fmt: skip
# What the worker gives the test's rerun: the claim's declared settings, scaled 1/2.
RERUN_SETTINGS = {
    "shared_buffers": "10MB",
    "effective_cache_size": "30MB",
    "synchronous_commit": "off",
}


def memory_stat(cgroup: Path) -> dict[str, int]:
    stat = {}
    for line in (cgroup / "memory.stat").read_text().splitlines():
        name, _, value = line.partition(" ")
        if name in STAT_KEYS:
            stat[name] = int(value)
    return stat


class ServerReads:
    """The server's own device reads: each process's read_bytes, the last seen of those that
    exited (an autovacuum worker's reads count once it is gone)."""

    def __init__(self, postmaster: int):
        self.postmaster = postmaster
        self.seen: dict[int, int] = {}
        self.kinds: dict[int, str] = {}

    def sample(self) -> tuple[int, list[str]]:
        running = []
        for pid in [self.postmaster, *descendants(self.postmaster)]:
            with contextlib.suppress(OSError, ValueError):
                for line in Path(f"/proc/{pid}/io").read_text().splitlines():
                    if line.startswith("read_bytes:"):
                        self.seen[pid] = int(line.split()[1])
                name = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                self.kinds[pid] = name
                if "autovacuum worker" in name:
                    running.append("autovacuum")
        return sum(self.seen.values()), running


def one_run(number: int, args, base_dir: str) -> dict:
    settings = {**RERUN_SETTINGS, **dict(each.split("=", 1) for each in args.set)}
    config = ServerConfig(kind="postgresql", base_dir=base_dir)
    limit = int(args.limit_mb * MIB)
    started_load = os.getloadavg()[0]
    with PrivateServer(config, "pgprobe", settings=settings, memory_limit=limit) as server:
        server.initialize()
        server.start()
        if server.wait_until_answering(deadline=time.monotonic() + 120):
            raise SystemExit("the private PostgreSQL server did not answer")
        server.create_database(fresh=True)
        cgroup = server.cgroup.path
        reads = ServerReads(server.pid)
        command = [
            str(BINARY), "--db", server.url, "--rows", str(args.rows),
            "--report-every", str(args.rows // 50), "--seed", str(1000 + number),
        ]  # fmt: skip
        samples = []
        started = time.perf_counter()
        # A connection of its own is a backend in the cgroup (its memory is the table's less):
        # only with --buffer-misses.
        watcher = server._connect("iibench") if args.buffer_misses else contextlib.nullcontext()
        with (
            watcher,
            subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, **server.client_environment()},
            ) as bench,
        ):
            lines = []
            for line in bench.stdout:
                lines.append(line)
                if not line[:1].isdigit():
                    continue
                fields = line.split("\t")
                read_bytes, running = reads.sample()
                # Buffer misses: reads from the OS (its page cache or the device).
                misses = (
                    watcher.execute(
                        "SELECT blks_read FROM pg_stat_database WHERE datname = 'iibench'"
                    ).fetchone()[0]
                    if args.buffer_misses
                    else 0
                )
                samples.append(
                    {
                        "rows": int(fields[0]),
                        "seconds": float(fields[1]),
                        "device_read_ops": int(fields[16]),
                        "server_read_bytes": read_bytes,
                        "buffer_misses": misses,
                        "autovacuum": bool(running),
                        **memory_stat(cgroup),
                    }
                )
            log = "".join(lines)
        wall = time.perf_counter() - started
        counters = server_counters(server)
    if args.logs:
        Path(args.logs).mkdir(parents=True, exist_ok=True)
        (Path(args.logs) / f"probe-{args.limit_mb:g}mb-{args.rows}-{number}.log").write_text(log)
    rows = np.array([s["rows"] for s in samples], dtype=float)
    seconds = np.array([s["seconds"] for s in samples])
    shape = shape_of(rows, seconds)
    server_reads = np.diff([0] + [s["server_read_bytes"] for s in samples]) / PAGE
    per_row = server_reads / np.diff([0.0, *rows])
    # Where the server's own reads first pass a page per 4 rows and stay past it.
    onset = next((i for i in range(len(per_row)) if np.median(per_row[i : i + 3]) >= 0.25), None)
    misses = np.diff([0] + [s["buffer_misses"] for s in samples]) / np.diff([0.0, *rows])
    # Where shared_buffers stop holding the indexes: a buffer miss per 4 rows, and staying.
    missing = next((i for i in range(len(misses)) if np.median(misses[i : i + 3]) >= 0.25), None)
    autovacuum = [i / len(samples) for i, s in enumerate(samples) if s["autovacuum"]]
    result = {
        "run": number,
        "settings": settings,
        "load_before": started_load,
        "load_after": os.getloadavg()[0],
        "wall": wall,
        "cliff": None if shape is None else shape.cliff,
        "reads_cliff": reads_cliff(rows, np.array([s["device_read_ops"] for s in samples])),
        "fall_ratio": None if shape is None else shape.fall_ratio,
        "initial_rate": None if shape is None else shape.initial_rate,
        "reads_onset": None if onset is None else (onset + 1) / len(samples),
        "misses_onset": None if missing is None else (missing + 1) / len(samples),
        "reads_per_row_end": float(np.median(per_row[-10:])),
        "autovacuum_at": autovacuum,
        "max_dirty_mb": max(s["dirty"] for s in samples) / MIB,
        "max_writeback_mb": max(s["writeback"] for s in samples) / MIB,
        "end": {key: samples[-1][key] for key in STAT_KEYS},
        "counters": counters,
        "samples": samples,
    }
    return result


def server_counters(server: PrivateServer) -> dict:
    with contextlib.closing(server._connect("iibench")) as connection:
        cursor = connection.cursor()
        cursor.execute(
            "SELECT autovacuum_count, autoanalyze_count, "
            "extract(epoch FROM last_autovacuum)::float, extract(epoch FROM last_autoanalyze)::float "
            "FROM pg_stat_user_tables WHERE relname = 'mypurchases'"
        )
        vacuums, analyzes, last_vacuum, last_analyze = cursor.fetchone()
        cursor.execute(
            "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean, "
            "buffers_backend FROM pg_stat_bgwriter"
        )
        timed, requested, by_checkpoint, by_bgwriter, by_backend = cursor.fetchone()
    return {
        "autovacuums": vacuums,
        "autoanalyzes": analyzes,
        "last_autovacuum": last_vacuum,
        "last_autoanalyze": last_analyze,
        "checkpoints": timed + requested,
        "buffers_written": {
            "checkpoint": by_checkpoint,
            "bgwriter": by_bgwriter,
            "backend": by_backend,
        },
    }


def line(result: dict) -> str:
    def pct(value):
        return "none" if value is None else f"{value:.0%}"

    end = result["end"]
    vac = result["autovacuum_at"]
    counters = result["counters"]
    return (
        f"run {result['run']}: steepest fall {pct(result['cliff'])}, cliff by the log's reads "
        f"{pct(result['reads_cliff'])}, fall {result['fall_ratio'] or 0:.2f}, "
        f"buffer misses past 0.25/row from {pct(result['misses_onset'])}, "
        f"server reads past 0.25 pages/row from {pct(result['reads_onset'])}, "
        f"{result['reads_per_row_end']:.2f} pages/row at the end; autovacuum seen "
        f"{'at ' + pct(vac[0]) + '-' + pct(vac[-1]) if vac else 'never'} "
        f"(vacuums {counters['autovacuums']}, analyzes {counters['autoanalyzes']}), "
        f"checkpoints {counters['checkpoints']}; max dirty {result['max_dirty_mb']:.1f} MB, "
        f"writeback {result['max_writeback_mb']:.1f} MB; end cache {end['cache'] / MIB:.1f} "
        f"shmem {end['shmem'] / MIB:.1f} rss {end['rss'] / MIB:.1f} mapped "
        f"{end['mapped_file'] / MIB:.1f} active_file {end['active_file'] / MIB:.1f} "
        f"inactive_file {end['inactive_file'] / MIB:.1f} MB; wall {result['wall']:.1f} s; "
        f"load {result['load_before']:.1f}->{result['load_after']:.1f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--rows", type=int, default=250_000)
    parser.add_argument("--limit-mb", type=float, default=50.5)
    parser.add_argument("--set", action="append", default=[], help="a server setting, k=v")
    parser.add_argument("--json", default="", help="a file for every run's samples")
    parser.add_argument("--logs", default="", help="a folder for every run's log")
    parser.add_argument(
        "--buffer-misses", action="store_true", help="count shared_buffers' misses too"
    )
    args = parser.parse_args()
    base_dir = tempfile.mkdtemp(prefix="pgpr-", dir="/tmp")
    Path(base_dir).chmod(0o755)
    print(load(), flush=True)
    results = []
    try:
        for number in range(1, args.runs + 1):
            results.append(one_run(number, args, base_dir))
            print(line(results[-1]), flush=True)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
        if args.json:
            Path(args.json).write_text(json.dumps(results))
    print(load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
