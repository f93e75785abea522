"""Where an InnoDB buffer pool's pages go during an iiBench run: the C benchmark on a private
MariaDB server (runner/servers.py) with the given pool, sampling
information_schema.INNODB_BUFFER_POOL_STATS every --every seconds (free pages, pages holding
data, dirty pages, pages read), then, at the end, each index's leaf pages (ANALYZE TABLE,
mysql.innodb_index_stats). Printed: the samples past the cliff (from --after of the run) as
ranges and the page reads per row over them. Used to find why a 1/10 verification run takes
more than a tenth of its claim's time (README "Scaling rule"): run it with the claim's pool
and rows, then with the rerun's.

    .venv/bin/python bench/buffer_pool.py --rows 300000 --pool 25 [--after 0.6] [--every 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scaling_sweeps import benchmark_command, private_server  # noqa: E402

STATS = (
    "SELECT FREE_BUFFERS, DATABASE_PAGES, MODIFIED_DATABASE_PAGES, NUMBER_PAGES_READ, POOL_SIZE "
    "FROM information_schema.INNODB_BUFFER_POOL_STATS"
)
LEAVES = (
    "SELECT index_name, stat_value FROM mysql.innodb_index_stats "
    "WHERE table_name = 'mypurchases' AND stat_name = 'n_leaf_pages' ORDER BY index_name"
)


@dataclass(frozen=True)
class Sample:
    fraction: float  # of the run's rows
    rows: int
    free: int
    data: int
    dirty: int
    read: int
    pool: int


def past(samples: list[Sample], after: float) -> str:
    """The samples from `after` of the run on, as ranges, and the page reads per row there."""
    late = [s for s in samples if s.fraction >= after]
    if len(late) < 2:
        return f"fewer than two samples past {after:.0%} of the run"
    first, last = late[0], late[-1]
    rows = last.rows - first.rows
    per_row = (last.read - first.read) / rows if rows else float("nan")

    def span(values: list[int]) -> str:
        return f"{min(values):,}-{max(values):,}"

    return (
        f"from {first.fraction:.0%} to {last.fraction:.0%} of the run ({len(late)} samples), "
        f"pool {last.pool:,} pages: free {span([s.free for s in late])} "
        f"({min(s.free for s in late) / last.pool:.0%}-{max(s.free for s in late) / last.pool:.0%}),"
        f" holding data {span([s.data for s in late])}, dirty {span([s.dirty for s in late])}; "
        f"{per_row:.2f} pages read per row"
    )


def run(rows: int, pool_mb: int, every: float, after: float, base_dir: str) -> None:
    settings = {"innodb_buffer_pool_size": f"{pool_mb}M", "innodb_flush_log_at_trx_commit": "2"}
    with private_server("mariadb", settings, base_dir, label="pool") as (server, read_back):
        shown = ", ".join(f"{k}={v}" for k, v in read_back.items())
        print(f"== {rows:,} rows, {shown}", flush=True)
        connection = pymysql.connect(
            host="127.0.0.1", port=server.port, user="root", password=server.password,
            database="iibench", autocommit=True,
        )  # fmt: skip
        benchmark = subprocess.Popen(
            benchmark_command(server, rows), stdout=subprocess.PIPE, text=True,
            env={**os.environ, **server.client_environment()},
        )  # fmt: skip
        done = [0]

        def follow() -> None:
            for line in benchmark.stdout:
                if line[:1].isdigit():
                    done[0] = int(line.split("\t", 1)[0])

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        started, samples = time.monotonic(), []
        while benchmark.poll() is None:
            time.sleep(every)
            with connection.cursor() as cursor:
                cursor.execute(STATS)
                free, data, dirty, read, pool = cursor.fetchone()
            samples.append(Sample(done[0] / rows, done[0], free, data, dirty, read, pool))
        reader.join()
        wall = time.monotonic() - started
        if benchmark.returncode:
            raise SystemExit(f"the benchmark failed ({benchmark.returncode})")
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE TABLE mypurchases")
            cursor.fetchall()
            cursor.execute(LEAVES)
            leaves = {name: int(value) for name, value in cursor.fetchall()}
        connection.close()
    secondary = sum(v for k, v in leaves.items() if k != "PRIMARY")
    print(f"  wall {wall:.1f} s; {past(samples, after)}")
    print(
        "  leaf pages at the end: "
        + ", ".join(f"{name} {count:,}" for name, count in leaves.items())
        + f"; the secondary indexes {secondary:,} ({secondary / rows * 1000:.2f} per 1,000 rows)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--pool", type=int, default=25, help="innodb_buffer_pool_size, MB")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--after", type=float, default=0.6, help="past the cliff: from here")
    args = parser.parse_args()
    base_dir = tempfile.mkdtemp(prefix="bp-", dir="/tmp")  # sockets: keep the path short
    try:
        run(args.rows, args.pool, args.every, args.after, base_dir)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
