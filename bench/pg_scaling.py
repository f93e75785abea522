"""PostgreSQL's scaling rule, measured: the C benchmark on private PostgreSQL servers, each in a
memory cgroup of its own (runner/servers.py, runner/cgroups.py), so the page cache the table
lives in is bounded as a host's RAM would bound it (submissions/setup/page_cache.py).

1. The sweep: the memory limits in --limits (MB), shared_buffers a quarter of each, and
   --rows-per-mb rows per MB, in --rounds rounds, the limits in turn (reversed every other
   round, so the machine's minutes fall on each alike): where each curve's cliff comes (the
   classic judge's shape_of) and its rates, with the limit read back from the cgroup and the
   page cache charged to it at the end. Fits through (limit, cliff rows): a line with a fixed
   part (the rule's headroom) and a power through the origin, each with its largest miss.
2. A claim and its verification at 1/k: --claim-rows on --claim-memory MB (shared_buffers a
   quarter), then --claim-rows/k rows on the rule's limit (page_cache.scaled_ram) with
   shared_buffers scaled 1/k, --repeats times; each curve's cliff and the classic judge's
   verdict (the claim was made here: the host is comparable). --pairs N repeats the claim and
   its reruns in turn, each claim timed beside its own reruns.

    .venv/bin/python bench/pg_scaling.py [--limits 48,96,192] [--rows-per-mb 7000]
        [--rounds 2] [--claim-memory 280] [--claim-rows 2200000] [--scale 10] [--repeats 3]
        [--pairs 1] [--skip-sweep] [--skip-claim] [--logs DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scaling_sweeps import (  # noqa: E402
    BINARY,
    REPORTS,
    Curve,
    describe,
    fits,
    judged_here,
    load,
    parse_curve,
    private_server,
)
from submissions.setup.page_cache import scaled_ram  # noqa: E402

MIB = 1 << 20
SHARED_BUFFERS_SHARE = 4  # shared_buffers a quarter of the memory (PostgreSQL's own advice)
LOGS: Path | None = None


@contextmanager
def private_postgresql(limit: int, shared_buffers: int, base_dir: str):
    """A private PostgreSQL in a memory cgroup of `limit` bytes, answering, with the
    benchmark's database."""
    settings = {"shared_buffers": f"{shared_buffers // 1024}kB", "synchronous_commit": "off"}
    with private_server(
        "postgresql", settings, base_dir, "pgbench", memory_limit=limit, read_back=False
    ) as (server, _):
        yield server


def run(limit_mb: float, shared_buffers: int, rows: int, base_dir: str) -> Curve:
    with private_postgresql(int(limit_mb * MIB), shared_buffers, base_dir) as server:
        read_back = server.cgroup.limit_read_back()
        started = time.perf_counter()
        done = subprocess.run(
            [str(BINARY), "--db", server.url, "--rows", str(rows),
             "--report-every", str(max(1_000, rows // REPORTS)), "--seed", "1"],
            capture_output=True, text=True, check=False,
            env={**os.environ, **server.client_environment()},
        )  # fmt: skip
        wall = time.perf_counter() - started
        cache = server.cgroup.page_cache()
    if done.returncode:
        raise SystemExit(f"the benchmark failed: {done.stderr.strip()[-500:]}")
    print(
        f"    memory limit {read_back / MIB:.1f} MB read back from the cgroup; shared_buffers "
        f"{shared_buffers / MIB:.1f} MB; page cache of files charged to it at the end "
        f"{cache / MIB:.0f} MB",
        flush=True,
    )
    if LOGS is not None:
        name = f"postgresql-{limit_mb:g}mb-{rows}-{time.strftime('%H%M%S')}.log"
        (LOGS / name).write_text(done.stdout)
    return parse_curve(done.stdout, wall, by_reads=True)


def sweep(args, base_dir: str) -> None:
    limits = [int(each) for each in args.limits.split(",")]
    cliffs: dict[int, list[int]] = {limit: [] for limit in limits}
    for number in range(1, args.rounds + 1):
        order = limits if number % 2 else list(reversed(limits))
        print(f"\n  round {number} of {args.rounds} ({load()})", flush=True)
        for limit in order:
            rows = limit * args.rows_per_mb
            print(f"  memory limit {limit} MB, {rows:,} rows", flush=True)
            curve = run(limit, limit * MIB // SHARED_BUFFERS_SHARE, rows, base_dir)
            print(f"    {describe(curve)}", flush=True)
            if curve.cliff_row is not None:
                cliffs[limit].append(curve.cliff_row)
    points = [(float(limit), int(statistics.median(c))) for limit, c in cliffs.items() if c]
    for limit, found in cliffs.items():
        shown = ", ".join(f"{c:,}" for c in found) or "none"
        print(f"  {limit} MB: cliff at rows {shown}")
    fit = fits(points)
    print(f"  fit (median cliff of each limit): {fit}" if fit else "  fit: fewer than two cliffs")


def one_pair(args, base_dir: str, pair: int) -> tuple[float, str]:
    claim_limit = args.claim_memory * MIB
    limit = scaled_ram(claim_limit, args.scale)
    buffers = claim_limit // SHARED_BUFFERS_SHARE
    print(
        f"\n== claim (pair {pair} of {args.pairs}): {args.claim_rows:,} rows, memory limit "
        f"{args.claim_memory} MB, shared_buffers {buffers // MIB} MB",
        flush=True,
    )
    claim = run(args.claim_memory, buffers, args.claim_rows, base_dir)
    print(f"  {describe(claim)}", flush=True)
    rows = args.claim_rows // args.scale
    print(
        f"\n== verification at 1/{args.scale}: {rows:,} rows, memory limit "
        f"{limit / MIB:.1f} MB (page_cache.scaled_ram), shared_buffers "
        f"{buffers / args.scale / MIB:.1f} MB, {args.repeats} runs",
        flush=True,
    )
    reruns = []
    for repeat in range(1, args.repeats + 1):
        curve = run(limit / MIB, buffers // args.scale, rows, base_dir)
        print(f"  run {repeat}: {describe(curve)}", flush=True)
        reruns.append(curve)
    each = statistics.mean(c.wall for c in reruns)
    verdict = judged_here(claim, reruns, args.scale)
    print(
        f"  time: claim {claim.wall:.0f} s, a run at 1/{args.scale} {each:.0f} s "
        f"({each / claim.wall:.1%} of the claim's)\n  verdict: {verdict.verdict}: "
        f"{verdict.message}",
        flush=True,
    )
    return each / claim.wall, verdict.verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limits", default="48,96,192", help="memory limits to sweep, MB")
    parser.add_argument("--rows-per-mb", type=int, default=7_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--claim-memory", type=int, default=280, help="the claim's limit, MB")
    parser.add_argument("--claim-rows", type=int, default=2_200_000)
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--skip-claim", action="store_true")
    parser.add_argument("--logs", default="", help="a folder to keep every run's log in")
    args = parser.parse_args()
    if args.logs:
        global LOGS
        LOGS = Path(args.logs)
        LOGS.mkdir(parents=True, exist_ok=True)
    base_dir = tempfile.mkdtemp(prefix="pgsc-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # PostgreSQL runs as its own user and must reach it
    print(f"Machine: shared with other jobs; figures are of this run. {load()}")
    try:
        if not args.skip_sweep:
            print("\n== PostgreSQL: the memory cgroup's limit against the cliff")
            sweep(args, base_dir)
        if not args.skip_claim:
            pairs = [one_pair(args, base_dir, pair) for pair in range(1, args.pairs + 1)]
            shares = [share for share, _ in pairs]
            print(
                f"\n== {len(pairs)} pair(s): a run at 1/{args.scale} took "
                f"{statistics.median(shares):.1%} of its claim's time (median; "
                f"{min(shares):.1%} to {max(shares):.1%}); verdicts: "
                + ", ".join(verdict for _, verdict in pairs)
            )
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    print(f"\n{load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
