"""MyISAM's and Aria's scaling rule, measured: the C benchmark (`--engine MyISAM`, `--engine
Aria`) on private MariaDB servers, each in a memory cgroup of its own (runner/servers.py,
runner/cgroups.py). MyISAM keeps index blocks in its key cache (key_buffer_size) and its files
in the page cache; Aria its pages in aria_pagecache_buffer_size and the page cache too: so, as
for PostgreSQL, where the cliff comes may be set by the cgroup (the RAM) rather than the buffer
(submissions/setup/page_cache.py, docs/scaling.md "MyISAM and Aria").

1. The cgroup sweep: the memory limits in --limits (MB), the engine's buffer --buffer MB in
   each, --rows-per-mb rows per MB of limit: where each curve's cliff comes, as the classic
   judge's steepest fall and where its device reads begin, the limit read back from the cgroup,
   the server's memory once started (the headroom) and the page cache charged at the end.
   Fits through (limit, cliff rows).
2. The buffer sweep: the buffer sizes in --buffers (MB) at --buffer-rows rows in a cgroup of
   --buffer-limit MB (large: the page cache holds the files): whether the cliff follows the
   buffer when the page cache does not bound the files.
3. A claim and its verification at 1/k (--claim-limit, --claim-buffer, --claim-rows, --scale,
   --repeats): the reruns in the rule's limit (page_cache.scaled_ram) with the buffer scaled
   by MEMORY_RULES, and the classic judge's verdict (the claim was made here).

Rounds alternate the order (reversed every other round). Every line printed names the load.

    .venv/bin/python bench/myisam_scaling.py [--engines MyISAM,Aria] [--limits 64,72,80]
        [--buffer 4] [--rows-per-mb 6000] [--rounds 1] [--buffers 1,4,16] [--buffer-rows 400000]
        [--buffer-limit 1024] [--claim-limit 128] [--claim-buffer 8] [--claim-rows 600000]
        [--scale 2] [--repeats 2] [--skip-sweep] [--skip-buffers] [--skip-claim] [--logs DIR]
        [--server-settings k=v,...] [--reports 50] [--seed 1]
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
from dataclasses import dataclass
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
from runner.judge.scaling import MEMORY_RULES, scaled_size  # noqa: E402
from runner.servers import PrivateServer  # noqa: E402
from submissions.setup.page_cache import ram_rule, scaled_ram  # noqa: E402
from submissions.setup.server_settings import MYSQL  # noqa: E402

MIB = 1 << 20
BUFFERS = {"myisam": "key_buffer_size", "aria": "aria_pagecache_buffer_size"}
# Settings every run shares: the InnoDB pool the server still starts (its system tables) kept
# small and alike, so the headroom is the MyISAM/Aria server's own.
COMMON = {"innodb_buffer_pool_size": "8M"}
LOGS: Path | None = None
SEED = "1"


@dataclass(frozen=True)
class Run:
    curve: Curve  # the rate's steepest fall
    by_reads: Curve  # the same reports, the cliff where device reads begin
    limit: int  # read back from the cgroup
    started: int  # the cgroup's usage once the server answered: its own memory
    cache: int  # files' page cache charged at the end
    peak: int  # the cgroup's highest usage

    def text(self) -> str:
        shape = self.by_reads.shape
        reads = (
            "none"
            if shape.cliff is None
            else f"{int(shape.cliff * shape.rows):,} rows ({shape.cliff:.0%})"
        )
        return (
            f"{describe(self.curve)}; device reads began at {reads}; limit "
            f"{self.limit / MIB:.1f} MB read back, server at start {self.started / MIB:.1f} MB, "
            f"peak {self.peak / MIB:.1f} MB, page cache at the end {self.cache / MIB:.1f} MB"
        )


def _usage(server: PrivateServer, name: str) -> int:
    text = (server.cgroup.path / name).read_text().strip()
    return int(text) if text.isdigit() else 0


@contextmanager
def private_mariadb(limit: int, settings: dict[str, str], base_dir: str):
    # The settings are not read back: the bench measures the server's own memory.
    with private_server(
        "mariadb", settings, base_dir, "mybench", memory_limit=limit, read_back=False
    ) as (server, _):
        yield server


def run(engine: str, limit_mb: float, buffer: int, rows: int, base_dir: str) -> Run:
    key = BUFFERS[engine.lower()]
    settings = {**COMMON, key: f"{max(1, buffer // 1024)}K"}
    with private_mariadb(int(limit_mb * MIB), settings, base_dir) as server:
        v1 = server.cgroup.version == 1
        started = _usage(server, "memory.usage_in_bytes" if v1 else "memory.current")
        read_back = server.cgroup.limit_read_back()
        began = time.perf_counter()
        done = subprocess.run(
            [str(BINARY), "--db", server.url, "--rows", str(rows), "--engine", engine,
             "--report-every", str(max(1_000, rows // REPORTS)), "--seed", SEED],
            capture_output=True, text=True, check=False,
            env={**os.environ, **server.client_environment()},
        )  # fmt: skip
        wall = time.perf_counter() - began
        cache = server.cgroup.page_cache()
        peak = _usage(server, "memory.max_usage_in_bytes" if v1 else "memory.peak")
    if done.returncode:
        raise SystemExit(f"the benchmark failed: {done.stderr.strip()[-500:]}")
    if LOGS is not None:
        name = (
            f"{engine.lower()}-{limit_mb:g}mb-{buffer >> 10}k-{rows}-{time.strftime('%H%M%S')}.log"
        )
        (LOGS / name).write_text(done.stdout)
    return Run(
        parse_curve(done.stdout, wall),
        parse_curve(done.stdout, wall, by_reads=True),
        read_back,
        started,
        cache,
        peak,
    )


def limit_sweep(args, engine: str, base_dir: str) -> None:
    limits = [int(each) for each in args.limits.split(",")]
    found: dict[int, list[tuple[int | None, int | None]]] = {limit: [] for limit in limits}
    for number in range(1, args.rounds + 1):
        order = limits if number % 2 else list(reversed(limits))
        print(f"\n  round {number} of {args.rounds} ({load()})", flush=True)
        for limit in order:
            rows = limit * args.rows_per_mb
            print(
                f"  {engine}: memory limit {limit} MB, buffer {args.buffer} MB, {rows:,} rows",
                flush=True,
            )
            each = run(engine, limit, args.buffer * MIB, rows, base_dir)
            print(f"    {each.text()}  [{load()}]", flush=True)
            found[limit].append((each.curve.cliff_row, each.by_reads.cliff_row))
    for name, pick in (("steepest fall", 0), ("device reads", 1)):
        points = [
            (float(limit), int(statistics.median(c)))
            for limit, runs in found.items()
            if (c := [r[pick] for r in runs if r[pick] is not None])
        ]
        print(f"  {engine}, cliff by {name}: {points}; fit: {fits(points) or 'fewer than two'}")


def buffer_sweep(args, engine: str, base_dir: str) -> None:
    for size in [int(each) for each in args.buffers.split(",")]:
        print(
            f"  {engine}: buffer {size} MB, memory limit {args.buffer_limit} MB, "
            f"{args.buffer_rows:,} rows",
            flush=True,
        )
        each = run(engine, args.buffer_limit, size * MIB, args.buffer_rows, base_dir)
        print(f"    {each.text()}  [{load()}]", flush=True)


def claim_and_verification(args, engine: str, base_dir: str) -> None:
    key = BUFFERS[engine.lower()]
    rule = ram_rule(MYSQL, engine)
    limit = scaled_ram(args.claim_limit * MIB, args.scale, rule)
    buffer = scaled_size(args.claim_buffer * MIB, args.scale, MEMORY_RULES[MYSQL][key])
    print(
        f"\n== {engine} claim: {args.claim_rows:,} rows, limit {args.claim_limit} MB, {key} "
        f"{args.claim_buffer} MB ({load()})",
        flush=True,
    )
    claim = run(engine, args.claim_limit, args.claim_buffer * MIB, args.claim_rows, base_dir)
    print(f"  {claim.text()}", flush=True)
    rows = args.claim_rows // args.scale
    print(
        f"== at 1/{args.scale}: {rows:,} rows, limit {limit / MIB:.1f} MB (page_cache), {key} "
        f"{buffer / MIB:.2f} MB, {args.repeats} runs",
        flush=True,
    )
    reruns = [run(engine, limit / MIB, buffer, rows, base_dir) for _ in range(args.repeats)]
    for number, each in enumerate(reruns, 1):
        print(f"  run {number}: {each.text()}", flush=True)
    share = statistics.mean(r.curve.wall for r in reruns) / claim.curve.wall
    for name, pick in (("steepest fall", "curve"), ("device reads", "by_reads")):
        verdict = judged(getattr(claim, pick), [getattr(r, pick) for r in reruns], args.scale)
        print(f"  verdict (cliff by {name}): {verdict.verdict}: {verdict.message}", flush=True)
    print(f"  a run at 1/{args.scale} took {share:.1%} of the claim's time ({load()})")


def judged(claim: Curve, reruns: list[Curve], scale: int):
    return judged_here(claim, reruns, scale, "the cliff placed where device reads begin")


def main() -> int:
    global REPORTS, SEED
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="MyISAM,Aria")
    parser.add_argument("--limits", default="64,72,80", help="memory limits to sweep, MB")
    parser.add_argument("--buffer", type=int, default=4, help="the buffer in the sweep, MB")
    parser.add_argument("--rows-per-mb", type=int, default=6_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--buffers", default="1,4,16", help="buffer sizes to sweep, MB")
    parser.add_argument("--buffer-rows", type=int, default=400_000)
    parser.add_argument("--buffer-limit", type=float, default=1024, help="MB")
    parser.add_argument("--claim-limit", type=int, default=128, help="MB")
    parser.add_argument("--claim-buffer", type=int, default=8, help="MB")
    parser.add_argument("--claim-rows", type=int, default=600_000)
    parser.add_argument("--scale", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--skip-buffers", action="store_true")
    parser.add_argument("--skip-claim", action="store_true")
    parser.add_argument("--logs", default="", help="a folder to keep every run's log in")
    parser.add_argument(
        "--server-settings", default="", help="key=value,... replacing the runs' common ones"
    )
    parser.add_argument("--reports", type=int, default=50, help="report lines a run")
    parser.add_argument("--seed", default="1")
    args = parser.parse_args()
    REPORTS, SEED = args.reports, args.seed
    if args.server_settings:
        COMMON.clear()
        COMMON.update(each.split("=", 1) for each in args.server_settings.split(","))
    if args.logs:
        global LOGS
        LOGS = Path(args.logs)
        LOGS.mkdir(parents=True, exist_ok=True)
    base_dir = tempfile.mkdtemp(prefix="mysc-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    print(f"Machine: shared with other jobs; figures are of this run. {load()}")
    try:
        for engine in args.engines.split(","):
            if not args.skip_sweep:
                print(f"\n== {engine}: the memory cgroup's limit against the cliff")
                limit_sweep(args, engine, base_dir)
            if not args.skip_buffers:
                print(f"\n== {engine}: the buffer against the cliff, the page cache unbounded")
                buffer_sweep(args, engine, base_dir)
            if not args.skip_claim:
                claim_and_verification(args, engine, base_dir)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    print(f"\n{load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
