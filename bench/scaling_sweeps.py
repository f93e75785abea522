"""The scaling rule of verification reruns, measured: the C benchmark on private MariaDB and
PostgreSQL servers (runner/servers.py: own data directory, port and socket, removed at the end)
with several memory sizes, finding where each curve's cliff comes and how far the rate falls.
Every curve is read as the classic judge reads it (runner/judge/classic.py
shape_of: the cliff is the rate's steepest fall, as a fraction of the run).

1. MariaDB, innodb_buffer_pool_size in --pools (MB), --rows-per-mb rows per MB, the page
   cleaner's free pages (innodb_lru_scan_depth) at the 128 MB default's share of each pool
   (--default-free: left at the default, as the rule before this one was measured): the row
   where the cliff comes. Fits through (pool, cliff rows): rows = a * (pool - overhead) **
   exponent, and its two special cases, a line (exponent 1) and a power (overhead 0), each
   with its largest miss. The rule (runner/judge/scaling.py MEMORY_RULES) takes the overhead
   and the exponent, and scales the free pages alike: pool_k = overhead + (pool - overhead) /
   k ** (1 / exponent).
2. PostgreSQL, shared_buffers in --pg-buffers (MB): the same.
2b. MyRocks (MariaDB with ha_rocksdb.so, --engine ROCKSDB): rocksdb_block_cache_size in
   --rocksdb-caches (MB) and rocksdb_db_write_buffer_size in --rocksdb-write-buffers (MB), each
   at a fixed --rocksdb-rows: whether the curve has a cliff at all, and whether its shape moves
   with the setting (docs/scaling.md "MyRocks").
3. A claim and its verification at scale 1/k: --claim-rows with --claim-pool, then
   --claim-rows/k rows with the pool the rule gives, --repeats times: wall time, each curve's
   cliff (fraction of its run), how far the rate falls, and the classic judge's verdict. With
   --pairs N the claim and its reruns run N times in turn, each claim timed beside its own
   reruns (the machine's speed moves from one minute to the next), and the share of the
   claim's time a rerun takes is printed as the median of the pairs with its range.

The issue's figure is a 3,000,000-row claim with a 128 MB pool at 1/10 (the Makefile's
default: five pairs, about an hour here). --keep-claim FILE keeps the claim's log and reuses
it, so another rule (--overhead, --exponent) can be tried on the same claim in a minute (one
pair); --logs DIR keeps every run's log.

    .venv/bin/python bench/scaling_sweeps.py [--pools 16,24,32] [--pg-buffers 8,32]
        [--claim-rows 3000000] [--claim-pool 128] [--scale 10] [--repeats 3] [--pairs 5]
        [--keep-claim var/claim.log] [--logs var/scaling-logs] [--overhead MB] [--exponent E]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner.activity import busiest_cpu, longest_wait, thread_times  # noqa: E402
from runner.judge.classic import (  # noqa: E402
    Shape,
    cliff_by_reads_sentence,
    judge_curves,
    shape_of,
)
from runner.judge.rerun import (  # noqa: E402
    VERIFICATION,
    client_wait_line,
    cpu_wait_line,
    critical_cpu_line,
)
from runner.judge.scaling import MEMORY_RULES, scaled_size  # noqa: E402
from runner.servers import PrivateServer, ServerConfig, plugins_for_engine  # noqa: E402
from submissions.setup.server_settings import MYSQL  # noqa: E402

BINARY = ROOT / "runner" / "iibench" / "iibench"
MIB = 1 << 20
REPORTS = 50  # report lines per run: enough to place a cliff within 2% of the run
READ_OPS = 16  # the reads column of a report line (runner/iibench/FORMAT.md)
TOLERANCE = 0.25  # a contest's default rerun tolerance


@dataclass(frozen=True)
class Curve:
    """One run's reports, with its shape as the classic track's judge reads it (where the
    cliff falls, how far the rate falls): one definition of the cliff, the judge's."""

    rows: np.ndarray
    seconds: np.ndarray
    wall: float
    # Each report's device reads, for a PostgreSQL run: its cliff is where they begin.
    reads: np.ndarray | None = None

    @property
    def shape(self) -> Shape:
        found = shape_of(self.rows, self.seconds, self.reads)
        if found is None:
            raise SystemExit(f"a run of {len(self.rows)} reports has no shape")
        return found

    @property
    def cliff_row(self) -> int | None:
        cliff = self.shape.cliff
        return None if cliff is None else int(cliff * self.shape.rows)


@contextmanager
def private_server(
    kind: str,
    settings: dict[str, str],
    base_dir: str,
    label: str = "bench",
    *,
    memory_limit: int = 0,
    read_back: bool = True,
):
    """A private server started with `settings`, answering, with the benchmark's database:
    (the server, the settings as read back from it). Removed on leaving. The kind "rocksdb"
    is MariaDB with MyRocks' plugin loaded. `memory_limit` (bytes): the server in a memory
    cgroup of that size, or the bench stops saying why none could be made. `read_back`:
    False leaves the settings unread ({}), for a bench measuring the server's own memory."""
    config = ServerConfig(
        kind="mariadb" if kind == ROCKSDB else kind,
        base_dir=base_dir,
        plugins=plugins_for_engine(kind) if kind == ROCKSDB else (),
    )
    with PrivateServer(config, label=label, settings=settings, memory_limit=memory_limit) as server:
        if memory_limit and server.cgroup is None:
            raise SystemExit(f"no memory cgroup: {server.cgroup_note}")
        server.initialize()
        server.start()
        if server.wait_until_answering(deadline=time.monotonic() + 120):
            raise SystemExit(f"the private {kind} server did not answer")
        server.create_database()
        yield server, server.read_settings(list(settings)) if read_back else {}


ROCKSDB = "rocksdb"


def benchmark_command(server: PrivateServer, rows: int, kind: str = "") -> list[str]:
    """The C benchmark inserting `rows` rows into the server, REPORTS reports a run."""
    engine = ["--engine", "ROCKSDB"] if kind == ROCKSDB else []
    return [str(BINARY), "--db", server.url, "--rows", str(rows),
            "--report-every", str(max(1_000, rows // REPORTS)), "--seed", "1", *engine]  # fmt: skip


def run_read_at_exit(
    args: list[str], env: dict[str, str]
) -> tuple[subprocess.CompletedProcess, dict[str, tuple[int, int]]]:
    """`args` run to their end (as `subprocess.run(capture_output=True, text=True)`), and the
    benchmark's threads' CPU and wait times read as it exits, before it is reaped (as a worker
    reads them: runner/watch.py `exited_unreaped`)."""
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=errors, env=env)  # nosec B603
        out = child.stdout.read()
        child.stdout.close()
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
        times = thread_times([child.pid])
        child.wait()
        errors.seek(0)
        err = errors.read()
    done = subprocess.CompletedProcess(
        args, child.returncode, out.decode(errors="replace"), err.decode(errors="replace")
    )
    return done, times


def run_benchmark(
    kind: str, settings: dict[str, str], rows: int, base_dir: str, keep: Path | None = None
) -> Curve:
    if keep is not None and keep.exists():
        # The claim's run is the long part of the figure: a kept one lets the
        # verification be run again (another rule) without running the claim again.
        print(f"    the curve kept in {keep}", flush=True)
        return parse_curve(keep.read_text(), float(keep.with_suffix(".wall").read_text()))
    with private_server(kind, settings, base_dir) as (server, read_back):
        before = thread_times(server.all_pids())
        started = time.perf_counter()
        done, client = run_read_at_exit(
            benchmark_command(server, rows, kind), {**os.environ, **server.client_environment()}
        )
        wall = time.perf_counter() - started
        # How long the server's busiest thread and the benchmark waited for a CPU, as a
        # worker's log says it.
        after = thread_times(server.all_pids())
        waited = longest_wait(
            *({key: wait for key, (_, wait) in each.items()} for each in (before, after))
        )
    if waited is not None and not done.returncode:
        said = cpu_wait_line(waited, wall)
        if client:
            ran = sum(cpu for cpu, _ in client.values()) / 1e9
            said += critical_cpu_line(ran, busiest_cpu(before, after))
            said += client_wait_line(sum(wait for _, wait in client.values()) / 1e9, wall)
        done = subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout + said, done.stderr
        )
    if done.returncode:
        raise SystemExit(f"the benchmark failed: {done.stderr.strip()[-500:]}")
    shown = ", ".join(f"{key}={value}" for key, value in read_back.items())
    print(f"    read back: {shown}", flush=True)
    if keep is not None:
        keep.write_text(done.stdout)
        keep.with_suffix(".wall").write_text(f"{wall}")
    if LOGS is not None:
        sizes = "-".join(value for value in settings.values() if value[:1].isdigit())
        name = f"{kind}-{sizes}-{rows}-{time.strftime('%H%M%S')}.log"
        (LOGS / name).write_text(done.stdout)
    return parse_curve(done.stdout, wall)


LOGS: Path | None = None  # --logs: every run's log is kept there


def parse_curve(log: str, wall: float, *, by_reads: bool = False) -> Curve:
    """`by_reads`: keep the reads column (FORMAT.md's `read_ops`), a PostgreSQL run's cliff."""
    reports = [line.split("\t") for line in log.splitlines() if line[:1].isdigit()]
    return Curve(
        np.array([int(r[0]) for r in reports], dtype=np.float64),
        np.array([float(r[1]) for r in reports]),
        wall,
        np.array([float(r[READ_OPS]) for r in reports]) if by_reads else None,
    )


def describe(curve: Curve) -> str:
    shape, cliff = curve.shape, curve.cliff_row
    at = "none" if cliff is None else f"{cliff:,} rows ({shape.cliff:.0%} of the run)"
    return (
        f"cliff {at}; before the fall {shape.initial_rate:,.0f} rows/s, after the cliff "
        f"{shape.fall_ratio:.3f} of it (terminal/initial {shape.terminal_ratio:.2f}); average "
        f"{shape.average_rate:,.0f} rows/s; "
        f"wall {curve.wall:.1f} s"
    )


@dataclass(frozen=True)
class Fit:
    """rows before the cliff = a * (pool MB - overhead) ** exponent, and its largest miss."""

    a: float
    overhead: float
    exponent: float
    miss: float

    def __str__(self) -> str:
        return (
            f"rows = {self.a:,.0f} x (MB - {self.overhead:.1f}) ** {self.exponent:.2f}, "
            f"largest miss {self.miss:.0%}"
        )


def fit(points: list[tuple[float, int]], *, overhead=None, exponent=None) -> Fit:
    """The fit with the smallest largest miss (in log) over a grid; `overhead` or `exponent`
    pins one (0: a power through the origin; 1: a line)."""
    pools, cliffs = np.array([p for p, _ in points]), np.log([c for _, c in points])
    best = None
    overheads = [overhead] if overhead is not None else np.arange(0.0, pools.min() - 0.5, 0.1)
    exponents = [exponent] if exponent is not None else np.arange(0.5, 2.5, 0.01)
    for o in overheads:
        logs = np.log(pools - o)
        for e in exponents:
            log_a = float(np.mean(cliffs - e * logs))
            miss = float(np.max(np.abs(log_a + e * logs - cliffs)))
            if best is None or miss < best[0]:
                best = (miss, log_a, o, e)
    miss, log_a, o, e = best
    return Fit(math.exp(log_a), float(o), float(e), math.exp(miss) - 1)


def fits(points: list[tuple[float, int]]) -> str | None:
    """A line with an overhead, a power through the origin and both at once, through
    (pool MB, cliff rows), each with its largest miss."""
    if len(points) < 2:
        return None
    return f"\n    line:  {fit(points, exponent=1.0)}\n    power: {fit(points, overhead=0.0)}" + (
        f"\n    both:  {fit(points)}" if len(points) > 2 else ""
    )


def sweep(
    kind: str, key: str, sizes: list[int], rows_for, extra: dict, base_dir: str,
    default_free: bool = False,
):  # fmt: skip
    unit = "MB" if kind == "postgresql" else "M"
    points = []
    for size in sizes:
        rows = rows_for(size)
        print(f"  {key} = {size} MB, {rows:,} rows", flush=True)
        free = {} if default_free else free_pages_of(kind, size)
        settings = {key: f"{size}{unit}", **extra, **free}
        curve = run_benchmark(kind, settings, rows, base_dir)
        print(f"    {describe(curve)}", flush=True)
        if curve.cliff_row is not None:
            points.append((size, curve.cliff_row))
    fit = fits([*points, *args_points(kind)])
    print(f"  fit: {fit}" if fit else "  fit: fewer than two cliffs found")
    return fit


def free_pages_of(kind: str, pool_mb: int) -> dict[str, str]:
    """The page cleaner's free pages for a swept InnoDB pool: the default's share of a 128 MB
    pool (1,536 of 8,192 pages), as the rule scales them with the pool, at least the
    server's least. Left at the default, they would be nearly all of a small pool."""
    free = MEMORY_RULES[MYSQL]["innodb_buffer_pool_size"].free
    if kind != "mariadb" or free is None:
        return {}
    return {free.key: str(max(free.least, round(free.default * pool_mb / 128)))}


EXTRA_POINTS: dict[str, list[tuple[float, int]]] = {}


def args_points(kind: str) -> list[tuple[float, int]]:
    """Cliffs measured before (--points 16:49000,20:87000): fitted with this run's."""
    return EXTRA_POINTS.get(kind, [])


def claim_and_verification(args, base_dir: str) -> None:
    """The claim and its verification at 1/k, --pairs times in turn (claim, its reruns, the
    claim again...): the time goal is a ratio, so each claim is timed beside its own reruns."""
    rule = MEMORY_RULES[MYSQL]["innodb_buffer_pool_size"]
    if args.exponent is not None or args.overhead is not None:
        # Another rule to try against the same claim (with --keep-claim, in a minute).
        rule = replace(
            rule,
            exponent=rule.exponent if args.exponent is None else args.exponent,
            overhead=rule.overhead if args.overhead is None else int(args.overhead * MIB),
        )
    keep = Path(args.keep_claim) if args.keep_claim else None
    if keep is not None and args.pairs > 1:
        raise SystemExit("--keep-claim reuses one claim: it cannot be timed beside each pair")
    pairs = [one_pair(args, base_dir, rule, keep, pair) for pair in range(1, args.pairs + 1)]
    if len(pairs) > 1:
        shares = [share for share, _, _ in pairs]
        print(
            f"\n== {len(pairs)} pairs, each claim timed beside its own reruns: a run at 1/"
            f"{args.scale} took {statistics.median(shares):.1%} of its claim's time (median; "
            f"{min(shares):.1%} to {max(shares):.1%}; goal: under {1 / args.scale:.0%}); the "
            f"cliff within 10% of the run in {sum(met for _, met, _ in pairs)} of {len(pairs)}; "
            "verdicts: " + ", ".join(verdict for _, _, verdict in pairs)
        )


def one_pair(args, base_dir: str, rule, keep: Path | None, pair: int) -> tuple[float, bool, str]:
    """One claim and its reruns: (a rerun's mean wall time over the claim's, whether the cliff
    fell within 10% of the run of the claim's, the classic judge's verdict)."""
    scaled = scaled_size(args.claim_pool * MIB, args.scale, rule)
    flushing = {"innodb_flush_log_at_trx_commit": "2"}
    # The page cleaner's free pages scaled with the pool, as a verification's server has them.
    free = {} if rule.free is None else {
        rule.free.key: str(rule.free_pages(rule.free.default, args.scale))
    }  # fmt: skip
    heading = f" (pair {pair} of {args.pairs})" if args.pairs > 1 else ""
    print(f"\n== claim{heading}: {args.claim_rows:,} rows, innodb_buffer_pool_size "
          f"{args.claim_pool} MB", flush=True)  # fmt: skip
    claim = run_benchmark(
        "mariadb", {"innodb_buffer_pool_size": f"{args.claim_pool}M", **flushing},
        args.claim_rows, base_dir, keep,
    )  # fmt: skip
    print(f"  {describe(claim)}")
    rows = args.claim_rows // args.scale
    print(
        f"\n== verification at 1/{args.scale}: {rows:,} rows, pool {scaled / MIB:.1f} MB "
        f"({rule.formula.format(size=f'{args.claim_pool} MB', k=args.scale)})"
        + "".join(f", {key} {value}" for key, value in free.items())
        + f", {args.repeats} runs"
    )
    reruns = []
    for repeat in range(1, args.repeats + 1):
        curve = run_benchmark(
            "mariadb",
            {"innodb_buffer_pool_size": f"{scaled // 1024}K", **free, **flushing},
            rows,
            base_dir,
        )
        print(f"  run {repeat}: {describe(curve)}", flush=True)
        reruns.append(curve)
    claimed = claim.shape
    cliffs = [1.0 if c.shape.cliff is None else c.shape.cliff for c in reruns]
    claimed_cliff = 1.0 if claimed.cliff is None else claimed.cliff
    ratios = [c.shape.fall_ratio for c in reruns]
    wall = sum(c.wall for c in reruns)
    met = min(cliffs) - 0.1 <= claimed_cliff <= max(cliffs) + 0.1
    print(
        f"\n  cliff: claim {claimed_cliff:.0%} of its run, reruns {min(cliffs):.0%} to "
        f"{max(cliffs):.0%} (goal: within 10% of the run: {'met' if met else 'NOT met'})"
    )
    print(
        f"  the rate after the cliff over the rate before it: claim {claimed.fall_ratio:.3f}, "
        f"reruns {min(ratios):.3f} to {max(ratios):.3f}"
    )
    each = statistics.mean(c.wall for c in reruns)
    print(
        f"  time: claim {claim.wall:.0f} s, verification {wall:.0f} s for {args.repeats} runs "
        f"({each:.0f} s each: {each / claim.wall:.1%} of the claim's; "
        f"goal: under {1 / args.scale:.0%})"
    )
    verdict = judged_here(claim, reruns, args.scale)
    print(f"  verdict: {verdict.verdict}: {verdict.message}", flush=True)
    return each / claim.wall, met, verdict.verdict


def judged_here(claim: Curve, reruns: list[Curve], scale: int, reads_sentence: str = ""):
    """The track's own judge, as a verification rerun on this host would be judged: the claim
    was made here, so the host is comparable and the absolute rates are compared too. Where
    the claim counts its reads, the cliff is placed by them, said with `reads_sentence`
    (PostgreSQL's by default)."""
    by_reads = claim.reads is not None
    verdict, _ = judge_curves(
        (claim.rows, claim.seconds),
        [(c.rows, c.seconds) for c in reruns],
        kind=VERIFICATION,
        scale=scale,
        host_comparable=True,
        tolerance=TOLERANCE,
        claimed_reads=claim.reads,
        rerun_reads=[c.reads for c in reruns] if by_reads else None,
        cliff_by_reads=(reads_sentence or cliff_by_reads_sentence("postgresql"))
        if by_reads
        else "",
    )
    return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pools", default="12,16,20", help="InnoDB pools to sweep, MB")
    parser.add_argument("--pg-buffers", default="", help="shared_buffers to sweep, MB")
    parser.add_argument("--rows-per-mb", type=int, default=15_000)
    parser.add_argument("--rocksdb-caches", default="", help="MyRocks block caches, MB")
    parser.add_argument("--rocksdb-write-buffers", default="", help="MyRocks memtables, MB")
    parser.add_argument("--rocksdb-rows", type=int, default=1_000_000)
    parser.add_argument("--claim-rows", type=int, default=3_000_000)
    parser.add_argument("--claim-pool", type=int, default=128, help="MB")
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--pairs", type=int, default=1, help="claims, each timed beside its own reruns"
    )
    parser.add_argument(
        "--exponent", type=float, default=None, help="default: the rule's (scaling.py)"
    )
    parser.add_argument(
        "--overhead", type=float, default=None, help="MB; default: the rule's (scaling.py)"
    )
    parser.add_argument(
        "--points", default="", help="earlier MariaDB cliffs to fit too: MB:rows,MB:rows"
    )
    parser.add_argument("--skip-claim", action="store_true")
    parser.add_argument(
        "--default-free",
        action="store_true",
        help="sweep with innodb_lru_scan_depth at its default (the rule before this one)",
    )
    parser.add_argument(
        "--keep-claim", default="", help="a file for the claim's log: reused when it exists"
    )
    parser.add_argument("--logs", default="", help="a folder to keep every run's log in")
    args = parser.parse_args()
    if args.logs:
        global LOGS
        LOGS = Path(args.logs)
        LOGS.mkdir(parents=True, exist_ok=True)
    EXTRA_POINTS["mariadb"] = [
        (float(mb), int(rows))
        for mb, rows in (pair.split(":") for pair in args.points.split(",") if pair)
    ]
    base_dir = tempfile.mkdtemp(prefix="sc-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # PostgreSQL runs as its own user and must reach it
    print(f"Machine: shared with other jobs; figures are of this run, not a calibration. {load()}")
    try:
        if args.pools:
            print("\n== MariaDB: innodb_buffer_pool_size against the cliff")
            sweep(
                "mariadb", "innodb_buffer_pool_size", [int(p) for p in args.pools.split(",")],
                lambda mb: mb * args.rows_per_mb, {"innodb_flush_log_at_trx_commit": "2"},
                base_dir, default_free=args.default_free,
            )  # fmt: skip
        if args.pg_buffers:
            print("\n== PostgreSQL: shared_buffers against the cliff")
            sweep(
                "postgresql", "shared_buffers", [int(p) for p in args.pg_buffers.split(",")],
                lambda mb: mb * args.rows_per_mb, {"synchronous_commit": "off"}, base_dir,
            )  # fmt: skip
        for key, sizes in (
            ("rocksdb_block_cache_size", args.rocksdb_caches),
            ("rocksdb_db_write_buffer_size", args.rocksdb_write_buffers),
        ):
            if sizes:
                print(f"\n== MyRocks: {key} against the cliff, {args.rocksdb_rows:,} rows")
                sweep(
                    ROCKSDB, key, [int(p) for p in sizes.split(",")],
                    lambda _mb: args.rocksdb_rows, {"rocksdb_flush_log_at_trx_commit": "2"},
                    base_dir,
                )  # fmt: skip
        if not args.skip_claim:
            claim_and_verification(args, base_dir)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    print(f"\n{load()}")
    return 0


def load() -> str:
    return "Load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
