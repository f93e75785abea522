"""Issue 29's confusion table: the classic judge's verdicts on claims made fresh on this machine
(honest claims) and on doctored copies of them, verified at each `--scales` 1/k as a
verification with `--repeats` runs would be judged here (the host comparable: the rates are
compared too, apart from the disk where the logs count reads and server CPU), every choice of
the repeats among the reruns.

The doctored copies: the times divided by 1.15, 1.25, 1.33, 1.5 and 3; the cliff moved x1.1,
x1.2 and x1.3; past the cliff 1.5x and 2x faster ("a faster disk"); and two lies about the setup,
judged against reruns of what the claim declares: an undeclared flush setting (the claim ran
innodb_flush_log_at_trx_commit=2 and declared none, so its verification runs the server's 1)
and 2x the pool declared (the verification scales the declared pool, twice the one it ran).
Also the same honest claim from a slower disk (past its cliff 1.5x slower, CPU as it was),
which must be reproduced. Goal on a quiet host: every honest claim `reproduced`; every lie of
1.25x or more, every cliff moved 20% or more, both setup lies refuted (`not_reproduced`), the
undeclared flush setting only where it changes this host's rate by more than the verdicts'
resolution (on a disk whose fsync is cheap it gains nothing and cannot be told apart: printed
then, with the gain measured); /1.15 and x1.1 are printed, not required: what falls there is the verdicts' stated resolution
(printed, median and range). A busy host may make a verdict inconclusive, never the wrong way.
Each verdict also passes the scaling rule's measured range (setup.scaling.extrapolated).

The time goal: a run at 1/10 under a tenth of its claim's time, each claim timed beside the
reruns made right after it (pairs; median and range printed), with the load average and the
CPU time stolen from this VM beside.

Issue 45, an ordinary host: the table once per `--loads` in one run, the claims made once on
the quiet host and the reruns made again beside each load the bench starts itself (`cpu`: one
core of CPU work; `disk`: a writer that fsyncs 64 MB at a time), as a worker runs them: in a
cgroup with a CPU weight above the load's (runner/cpu_weight.py), a fixed reference run on a
server of its own before each rerun and after the last (runner/reference_runs.py's workload),
each verification judged on consecutive reruns with the references around them against the
quiet host's reference rate (measured first, as a calibration would), and the CPU floor. Goal
beside one core of other work: honest claims and the slower disk reproduced, lies of 1.25x or
more refuted in at least 95% of each cell's verifications, inconclusive under 10%, a 3x lie
refuted in every one. Each table says its load and how long a verification's runs took.

    .venv/bin/python bench/verification_power.py [--claims 5] [--claim-rows 3000000]
        [--claim-pool 128] [--scales 5,10] [--runs-per-claim 1] [--setup-runs 3]
        [--repeats 3] [--logs DIR] [--loads quiet,cpu,disk] [--quick]

`--logs DIR` keeps every run (claims, reruns) there and reuses the runs already in it, so the
table can be judged again without running anything. About 35 minutes with the defaults on the
quiet 2-core VM for one load; `--quick` (one 960,000-row claim with a 64 MB pool at 1/8, three
reruns of each kind) about 3 a load.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import shutil
import statistics
import subprocess  # nosec B404: the bench's own loads, fixed commands
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.scaling_sweeps as scaling  # noqa: E402
from runner.cpu_weight import cpu_weight_group  # noqa: E402
from runner.judge.classic import judge_curves, shape_of  # noqa: E402
from runner.judge.host_speed import (  # noqa: E402  # noqa: E402
    REFERENCE_CLAIMED_ROWS,
    REFERENCE_DECLARED,
    REFERENCE_SCALE,
    HostSpeed,
    work_cpu_seconds,
)
from runner.judge.rerun import (  # noqa: E402
    BUSY_CORES,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    SHAPE_ONLY,
    VERIFICATION,
    column,
    curve,
    other_work,
    server_major,
    stated_cpu_wait,
    stated_critical_cpu,
    stated_path_wait,
)
from runner.judge.scaling import extrapolated, memory_for_scale  # noqa: E402
from submissions.logparse import parse_log  # noqa: E402
from submissions.setup.server_settings import MYSQL  # noqa: E402

TOLERANCE = 0.25  # a contest's default rerun tolerance
FLUSH = "innodb_flush_log_at_trx_commit"
CLAIM_FLUSH = "2"  # what the claims run
DEFAULT_FLUSH = "1"  # the server's own: what a verification runs when none is declared
# rows, seconds, reads, server CPU at each report
Run = tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]


@dataclass
class Made:
    """A run of the benchmark: its curve and counters, the cores other work kept busy meanwhile,
    its wall time and its server's (family, major)."""

    run: Run
    busy: float | None
    wall: float
    server: tuple[str, str] | None
    work: float | None = None  # the benchmark's and its server's CPU seconds
    cpu_wait: float | None = None  # the share of the run the server waited for a CPU
    path_wait: float | None = None  # ... the benchmark and its server's busiest thread did
    critical: float | None = None  # their CPU seconds (`# rerun critical cpu`)


def divided(claim: Run, by: float) -> Run:
    rows, seconds, reads, cpu = claim
    return rows, seconds / by, reads, cpu


def past_the_cliff(claim: Run, factor: float) -> Run:
    """Each interval from the cliff on `factor` times as long, reads and CPU as they were."""
    rows, seconds, reads, cpu = claim
    cliff = shape_of(rows, seconds).cliff * rows[-1]
    spans = np.diff(seconds, prepend=0.0)
    return rows, np.cumsum(np.where(rows > cliff, spans * factor, spans)), reads, cpu


def cliff_moved(claim: Run, factor: float) -> Run:
    rows, seconds, reads, cpu = claim
    cliff = shape_of(rows, seconds).cliff
    moved = np.interp(rows / rows[-1], [0, cliff, 1], [0, cliff * factor, 1]) * rows[-1]
    return moved.astype(np.int64), seconds, reads, cpu


@dataclass(frozen=True)
class Variant:
    label: str
    doctor: object  # Run -> Run
    wanted: str | None  # the verdict it must get; None: printed only
    reruns: str = "declared"  # which reruns verify it: the claim's own setup, or a lie's
    pool_factor: int = 1  # the pool it declares, over the one it ran


def _same(claim: Run) -> Run:
    return claim


VARIANTS = (
    Variant("the true claim", _same, REPRODUCED),
    Variant("a slower disk: past the cliff x1.5", lambda c: past_the_cliff(c, 1.5), REPRODUCED),
    Variant("times / 1.15", lambda c: divided(c, 1.15), None),
    *(
        Variant(f"times / {by:g}", lambda c, by=by: divided(c, by), NOT_REPRODUCED)
        for by in (1.25, 1.33, 1.5, 3)
    ),
    Variant("cliff x1.1", lambda c: cliff_moved(c, 1.1), None),
    *(
        Variant(f"cliff x{by:g}", lambda c, by=by: cliff_moved(c, by), NOT_REPRODUCED)
        for by in (1.2, 1.3)
    ),
    *(
        Variant(
            f"past the cliff {by:g}x faster",
            lambda c, by=by: past_the_cliff(c, 1 / by),
            NOT_REPRODUCED,
        )
        for by in (1.5, 2)
    ),
    Variant("undeclared flush setting", _same, NOT_REPRODUCED, reruns="flush"),
    Variant("2x the pool declared", _same, NOT_REPRODUCED, reruns="pool", pool_factor=2),
)


def read_made(path: Path, wall: float) -> Made:
    text = path.read_bytes()
    parsed = parse_log(io.BytesIO(text))
    waits = stated_cpu_wait(text.decode(errors="replace"))
    series = parsed.series
    stated = parsed.parameters.get("server_version")
    return Made(
        (*curve(parsed), column(series.read_ops), column(series.server_cpu_s)),
        other_work(parsed),
        wall,
        None if stated is None else server_major(str(stated.value)),
        work_cpu_seconds(column(series.client_cpu_s), column(series.server_cpu_s)),
        max(waits) if waits else None,
        stated_path_wait(text.decode(errors="replace")),
        stated_critical_cpu(text.decode(errors="replace")),
    )


def make(settings: dict[str, str], rows: int, path: Path, base_dir: str) -> Made:
    """One run on a fresh private MariaDB, kept in `path` (an existing one is read instead)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    made = scaling.run_benchmark("mariadb", settings, rows, base_dir, keep=path)
    print(f"    {path.parent.name}/{path.name}: {scaling.describe(made)}", flush=True)
    return read_made(path, made.wall)


def rerun_memory(pool_mb: int, scale: int) -> dict[str, str]:
    """The memory a verification's private server gets: the service's own function."""
    declared = {"innodb_buffer_pool_size": f"{pool_mb}M"}
    return memory_for_scale(declared, family=MYSQL, scale=scale, memory_gb=0).settings


@dataclass
class Runs:
    claims: list[Made] = field(default_factory=list)
    # (scale, which) -> reruns; which: "declared", "flush", "pool"
    reruns: dict[tuple[int, str], list[Made]] = field(default_factory=dict)
    pairs: list[tuple[float, float]] = field(default_factory=list)  # (claim wall, 1/k wall)
    # (scale, which) -> the reference rates before each rerun and after the last
    references: dict[tuple[int, str], list[float]] = field(default_factory=dict)
    quiet: float | None = None  # the quiet host's reference rate (median)
    load: str = "quiet"
    seconds: float = 0.0  # how long the reruns and references beside the load took
    load_average: str = ""


REFERENCE_ROWS = REFERENCE_CLAIMED_ROWS // REFERENCE_SCALE
QUIET_REFERENCES = 3
SMALLEST_POOL_MB = 8  # InnoDB rounds a smaller innodb_buffer_pool_size up to this


def reference_settings() -> dict[str, str]:
    """The fixed reference workload's server, as a worker's reference server runs it."""
    pool = int(REFERENCE_DECLARED["innodb_buffer_pool_size"].removesuffix("M"))
    return {**rerun_memory(pool, REFERENCE_SCALE), FLUSH: REFERENCE_DECLARED[FLUSH]}


def reference_rate(base_dir: str, keep: Path) -> float:
    """One reference run, kept in `keep` (an existing one is read instead)."""
    keep.parent.mkdir(parents=True, exist_ok=True)
    made = scaling.run_benchmark("mariadb", reference_settings(), REFERENCE_ROWS, base_dir, keep)
    rate = made.rows[-1] / made.seconds[-1]
    print(f"    reference: {REFERENCE_ROWS:,} rows at {rate:,.0f} rows/s", flush=True)
    return float(rate)


def reruns_between_references(
    settings: dict[str, str], rows: int, count: int, folder: Path, base_dir: str
) -> tuple[list[Made], list[float]]:
    """R C R C ... R: `count` reruns, a reference before each and after the last."""
    references, reruns = [reference_rate(base_dir, folder / "reference-0.log")], []
    for each in range(1, count + 1):
        reruns.append(make(settings, rows, folder / f"{each}.log", base_dir))
        references.append(reference_rate(base_dir, folder / f"reference-{each}.log"))
    return reruns, references


def collect_beside(args, claims: list[Made], quiet: float, load: str, folder: Path,
                   base_dir: str) -> Runs:  # fmt: skip
    """The reruns of every kind at every scale made beside `load`, between references."""
    runs = Runs(claims=claims, quiet=quiet, load=load)
    for scale in args.scales:
        kinds = {
            "declared": ({**rerun_memory(args.claim_pool, scale), FLUSH: CLAIM_FLUSH},
                         len(claims) * args.runs_per_claim),
            "flush": ({**rerun_memory(args.claim_pool, scale), FLUSH: DEFAULT_FLUSH},
                      args.setup_runs),
            "pool": ({**rerun_memory(2 * args.claim_pool, scale), FLUSH: CLAIM_FLUSH},
                     args.setup_runs),
        }  # fmt: skip
        for which, (settings, count) in kinds.items():
            made, references = reruns_between_references(
                settings, args.claim_rows // scale, count,
                folder / load / f"1-{scale}-{which}", base_dir,
            )  # fmt: skip
            runs.reruns[(scale, which)] = made
            runs.references[(scale, which)] = references
    return runs


CPU_LOAD = (
    "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
)
DISK_LOAD = (
    "import os, time\nend = time.monotonic() + {seconds}\nblock = os.urandom(1 << 20)\n"
    "while time.monotonic() < end:\n"
    "    with open({path!r}, 'wb') as out:\n"
    "        for _ in range(64):\n"
    "            out.write(block)\n"
    "        out.flush()\n"
    "        os.fsync(out.fileno())\n"
)
LOAD_SECONDS = 4 * 3600  # a load outlives no bench: it stops by itself after this


@contextmanager
def competing(load: str, group) -> Iterator[None]:
    """The load the bench starts beside its reruns, outside the bench's weight group."""
    if load == "quiet":
        yield
        return
    scratch = Path(tempfile.mkdtemp(prefix="vp-load-", dir="/var/tmp"))
    code = (CPU_LOAD if load == "cpu" else DISK_LOAD).format(
        seconds=LOAD_SECONDS, path=str(scratch / "writer")
    )
    started = subprocess.Popen([sys.executable, "-c", code])  # nosec B603
    if group is not None:
        group.leave(started.pid)  # other work: in the parent cgroup, at the default weight
    try:
        yield
    finally:
        started.kill()
        started.wait()
        shutil.rmtree(scratch, ignore_errors=True)


def collect(args, folder: Path, base_dir: str, group) -> list[Runs]:
    """The claims, made on the quiet host, and the quiet reference rate (as a calibration
    measures it); then, beside each load, the reruns of every kind between references."""
    claim_settings = {"innodb_buffer_pool_size": f"{args.claim_pool}M", FLUSH: CLAIM_FLUSH}
    claims = [
        make(claim_settings, args.claim_rows, folder / "claims" / f"{number}.log", base_dir)
        for number in range(1, args.claims + 1)
    ]
    quiet = statistics.median(
        reference_rate(base_dir, folder / "quiet" / f"reference-{each}.log")
        for each in range(1, QUIET_REFERENCES + 1)
    )
    print(f"The quiet host's reference rate: {quiet:,.0f} rows/s (median of "
          f"{QUIET_REFERENCES})", flush=True)  # fmt: skip
    tables = []
    for load in args.loads:
        print(f"Reruns beside {LOAD_WORDS[load]}: {load_average()}", flush=True)
        began = time.monotonic()
        with competing(load, group):
            runs = collect_beside(args, claims, quiet, load, folder, base_dir)
        runs.seconds = time.monotonic() - began
        runs.load_average = load_average()
        top = max(args.scales)
        walls = [each.wall for each in runs.reruns[(top, "declared")]]
        runs.pairs = [(claim.wall, wall) for claim in claims for wall in walls]
        tables.append(runs)
    return tables


LOAD_WORDS = {
    "quiet": "nothing else (the quiet host)",
    "cpu": "one core of CPU work the bench started",
    "disk": "a disk writer the bench started (64 MB fsynced at a time)",
}


def judged(
    claim: Run, chosen: list[Made], scale: int, pool_mb: int, speed: HostSpeed | None = None
) -> tuple[str, dict, bool]:
    """One verification as a worker judges it: the classic judge (with the references around
    its reruns and the host's CPU floor), then the scaling rule's measured range (outside it a
    reproduction is at best shape_only)."""
    rows, seconds, reads, cpu = claim
    busy = max((each.busy for each in chosen if each.busy is not None), default=None)
    verdict, figures = judge_curves(
        (rows, seconds), [each.run[:2] for each in chosen], kind=VERIFICATION, scale=scale,
        host_comparable=True, tolerance=TOLERANCE, claimed_reads=reads,
        rerun_reads=[each.run[2] for each in chosen], claimed_cpu=cpu,
        rerun_cpu=[each.run[3] for each in chosen], busy_cores=busy, host_speed=speed,
        rerun_work=[each.work for each in chosen], cores=os.cpu_count() or 1,
        cpu_wait=max((each.cpu_wait for each in chosen if each.cpu_wait is not None), default=None),
        rerun_waits=[each.path_wait for each in chosen],
        rerun_critical_cpu=[each.critical for each in chosen],
    )  # fmt: skip
    outside = extrapolated(
        {"innodb_buffer_pool_size": f"{pool_mb}M"}, family=MYSQL, scale=scale, memory_gb=0,
        server=chosen[0].server,
    )  # fmt: skip
    found = verdict.verdict
    if outside is not None and found == REPRODUCED:
        found = SHAPE_ONLY
    return found, figures, outside is not None


@dataclass
class Row:
    found: Counter = field(default_factory=Counter)
    failing: Counter = field(default_factory=Counter)
    factors: list[float] = field(default_factory=list)
    shifts: list[float] = field(default_factory=list)
    extrapolated: int = 0


def table_row(variant: Variant, runs: Runs, scale: int, repeats: int, pool_mb: int) -> Row:
    row = Row()
    reruns = runs.reruns[(scale, variant.reruns)]
    # A setup lie's own reruns may be fewer than a verification's repeats (`--setup-runs`):
    # then each verification judges all of them, never none.
    repeats = min(repeats, len(reruns))
    for claim in runs.claims:
        doctored = variant.doctor(claim.run)
        for chosen, speed in verifications(runs, (scale, variant.reruns), repeats):
            verdict, figures, outside = judged(
                doctored, chosen, scale, pool_mb * variant.pool_factor, speed
            )
            row.found[verdict] += 1
            row.extrapolated += outside
            resolution = figures.get("resolution") or {}
            if resolution.get("too_fast_factor") is not None:
                row.factors.append(resolution["too_fast_factor"])
            if resolution.get("cliff_shift") is not None:
                row.shifts.append(resolution["cliff_shift"])
            if verdict != REPRODUCED:
                reason = figures.get("headline", "")
                row.failing[reason if len(reason) <= 150 else reason[:149] + "…"] += 1
    return row


def verifications(runs: Runs, key: tuple[int, str], repeats: int):
    """The verifications of a cell: with references, each run of `repeats` consecutive reruns
    and the references around them (as a worker runs R C R C R); without, every choice."""
    reruns = runs.reruns[key]
    references = runs.references.get(key)
    if not references:
        for chosen in itertools.combinations(reruns, repeats):
            yield list(chosen), None
        return
    for start in range(len(reruns) - repeats + 1):
        during = tuple(references[start : start + repeats + 1])
        speed = HostSpeed(
            during, runs.quiet, "the bench's quiet references", f"{REFERENCE_ROWS:,} rows each"
        )
        yield reruns[start : start + repeats], speed


def setting_gain(runs, scale: int, which: str) -> float | None:
    """How many times faster the claim's flush setting ran on this host than the one its
    verification runs (the declared reruns' median average rate over the flush reruns'): a lie
    about it is only refutable here where that exceeds the verdicts' resolution. None for the
    other variants."""
    if which != "flush" or not runs.reruns.get((scale, "flush")):
        return None

    def rate(made: Made) -> float:
        rows, seconds = made.run[0], made.run[1]
        return float(rows[-1] / seconds[-1])

    declared = statistics.median(rate(each) for each in runs.reruns[(scale, "declared")])
    return declared / statistics.median(rate(each) for each in runs.reruns[(scale, "flush")])


def right(row: Row, wanted: str | None, quiet: bool, load: str = "quiet") -> str:
    """Quiet: every verification right. Beside one core of other work (issue 45): at least 95%
    right, under 10% inconclusive, none the wrong way, a 3x lie refuted in every one. Beside a
    disk writer: none the wrong way (inconclusive ones said)."""
    if wanted is None:
        return "printed, not required"
    total = sum(row.found.values())
    if not total:
        return "WRONG: nothing judged"
    opposite = NOT_REPRODUCED if wanted == REPRODUCED else REPRODUCED
    share = row.found[wanted] / total
    if row.found[wanted] == total:
        return "right"
    if row.found[opposite]:
        return f"WRONG: {row.found[opposite]} the wrong way"
    if load == "cpu" and share >= 0.95 and row.found[INCONCLUSIVE] / total < 0.10:
        return f"right in {share:.0%} (goal 95%)"
    if load != "cpu" and not quiet and row.found[wanted] + row.found[INCONCLUSIVE] == total:
        return "right (inconclusive ones: a busy host)"
    return f"WRONG: right in {share:.0%} (inconclusive {row.found[INCONCLUSIVE]})"


def spread(values: list[float], form: str) -> str:
    if not values:
        return "not stated"
    middle = form.format(statistics.median(values))
    return f"{middle} ({form.format(min(values))} to {form.format(max(values))})"


class Steal:
    """The CPU time the hypervisor gave other guests while this VM wanted it, from /proc/stat."""

    def __init__(self) -> None:
        self.start = self.read()

    @staticmethod
    def read() -> tuple[int, int] | None:
        try:
            values = [
                int(each) for each in Path("/proc/stat").read_text().split("\n")[0].split()[1:]
            ]
        except (OSError, ValueError):
            return None
        return (values[7] if len(values) > 7 else 0), sum(values)

    def share(self) -> str:
        end = self.read()
        if self.start is None or end is None or end[1] == self.start[1]:
            return "not measured"
        return f"{(end[0] - self.start[0]) / (end[1] - self.start[1]):.1%}"


def load_average() -> str:
    return "load average (1, 5, 15 min) " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=5, help="honest claims made fresh")
    parser.add_argument("--claim-rows", type=int, default=3_000_000)
    parser.add_argument("--claim-pool", type=int, default=128, help="MB")
    parser.add_argument("--scales", default="5,10", help="k of each 1/k, comma-separated")
    parser.add_argument("--runs-per-claim", type=int, default=1,
                        help="declared reruns made after each claim, at each scale")  # fmt: skip
    parser.add_argument("--setup-runs", type=int, default=3,
                        help="reruns at each scale for each setup lie")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--logs", default="", help="keep the runs here, and reuse those there")
    parser.add_argument("--loads", default="quiet",
                        help="the tables to make, comma-separated: quiet, cpu (one core of "
                        "other work), disk (a writer fsyncing 64 MB at a time)")  # fmt: skip
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: one 960,000-row claim, 64 MB pool, 1/8")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.claims, args.claim_rows, args.claim_pool, args.scales = 1, 960_000, 64, "8"
        args.runs_per_claim = 3
    args.loads = [each.strip() for each in args.loads.split(",") if each.strip()]
    unknown = set(args.loads) - {"quiet", "cpu", "disk"}
    if unknown:
        parser.error(f"unknown loads: {', '.join(sorted(unknown))} (quiet, cpu, disk)")
    args.scales = sorted({int(each) for each in args.scales.split(",") if each.strip()})
    small = [k for k in args.scales if args.claim_pool / k < SMALLEST_POOL_MB]
    if small:
        # The server rounds a smaller pool up: the reruns' cliff would fall late, and every
        # verdict, honest ones too, be refuted on it (seen: 64 MB at 1/10).
        parser.error(
            f"a {args.claim_pool} MB pool at 1/{small[0]} is under InnoDB's smallest pool "
            f"({SMALLEST_POOL_MB} MB): use a larger --claim-pool or a smaller 1/k"
        )
    return args


def main() -> int:
    args = arguments()
    steal = Steal()
    began = time.monotonic()
    print(f"Start: {load_average()}", flush=True)
    folder = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="vp-logs-"))
    base_dir = tempfile.mkdtemp(prefix="vp-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    # As a worker runs a verification: its servers and benchmark above other work's weight.
    group, why_not = cpu_weight_group(f"iibench-bench-{os.getpid()}")
    if group is not None:
        group.add(os.getpid())  # every server and benchmark the bench starts follows
    print(f"CPU weight: {group.describe() if group is not None else f'none: {why_not}'}")
    try:
        tables = collect(args, folder, base_dir, group)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
        if not args.logs:
            shutil.rmtree(folder, ignore_errors=True)
        if group is not None:
            group.leave(os.getpid())
            group.remove()
    print(
        f"Runs made: {load_average()}, CPU stolen {steal.share()}, {time.monotonic() - began:,.0f} s"
    )
    claims = [each.wall for each in tables[0].claims]
    print(f"{len(claims)} claims of {args.claim_rows:,} rows, {args.claim_pool} MB pool, "
          f"{FLUSH}={CLAIM_FLUSH}: {min(claims):.0f} to {max(claims):.0f} s")  # fmt: skip
    met = True
    for runs in tables:
        met = print_tables(args, runs) and met
    print(f"\nEnd: {load_average()}, CPU stolen over the bench {steal.share()}, "
          f"{time.monotonic() - began:,.0f} s in all")  # fmt: skip
    print(f"Power both ways: {'met' if met else 'NOT met'}")
    return 0 if met else 1


def print_tables(args, runs: Runs) -> bool:
    """One load's table at every scale; whether every cell met its goal."""
    busy = [
        each.busy for reruns in runs.reruns.values() for each in reruns if each.busy is not None
    ]
    quiet = not busy or max(busy) < BUSY_CORES
    count = sum(len(each) for each in runs.reruns.values())
    print(f"\n## Beside {LOAD_WORDS[runs.load]}: {count} reruns and their references in "
          f"{runs.seconds:,.0f} s, then {runs.load_average}")  # fmt: skip
    print(
        f"Other work beside the reruns: {min(busy):.2f} to {max(busy):.2f} cores "
        f"({'quiet' if quiet else 'busy'})"
        if busy
        else "Other work beside the reruns: not measured"
    )
    waits = [
        each.cpu_wait for made in runs.reruns.values() for each in made if each.cpu_wait is not None
    ]
    if waits:
        print(f"The servers' busiest thread waited for a CPU {min(waits):.1%} to {max(waits):.1%} "
              "of a run")  # fmt: skip
    references = [rate for each in runs.references.values() for rate in each]
    if references and runs.quiet:
        print(f"The references beside them: {min(references):,.0f} to {max(references):,.0f} "
              f"rows/s, the quiet host's {runs.quiet:,.0f}")  # fmt: skip
    met = True
    for scale in args.scales:
        met = print_scale(args, runs, scale, quiet) and met
    print(verification_time(args, runs))
    if runs.pairs:
        shares = [rerun / claim for claim, rerun in runs.pairs]
        print(f"A run at 1/{max(args.scales)} took {statistics.median(shares):.1%} of a "
              f"claim's time here (median of {len(shares)} pairs; {min(shares):.1%} to "
              f"{max(shares):.1%}): goal under {1 / max(args.scales):.1%}")  # fmt: skip
    return met


def verification_time(args, runs: Runs) -> str:
    """The benchmarks' seconds of one verification at the largest 1/k beside this load: its
    reruns' (the median) and the references' around them, the servers' starts aside."""
    key = (max(args.scales), "declared")
    walls = [each.wall for each in runs.reruns.get(key, [])]
    rates = runs.references.get(key, [])
    if not walls:
        return "A verification's time: no rerun."
    reference = REFERENCE_ROWS / statistics.median(rates) if rates else 0.0
    total = args.repeats * statistics.median(walls) + (args.repeats + 1) * reference
    return (
        f"A verification at 1/{key[0]} ran {total:.0f} s of benchmarks here: {args.repeats} x "
        f"{statistics.median(walls):.1f} s of reruns (median), {args.repeats + 1} x "
        f"{reference:.1f} s of references (the servers' starts aside)"
    )


def print_scale(args, runs: Runs, scale: int, quiet: bool) -> bool:
    declared = runs.reruns[(scale, "declared")]
    if len(declared) < args.repeats:
        raise SystemExit(f"{len(declared)} reruns at 1/{scale}: fewer than --repeats")
    memory = ", ".join(f"{k}={v}" for k, v in rerun_memory(args.claim_pool, scale).items())
    print(f"\nAt 1/{scale} ({memory}): each {args.repeats} consecutive of {len(declared)} "
          f"reruns with the references around them, for each of {len(runs.claims)} claims; "
          f"setup lies against {args.setup_runs} reruns of what they declare; tolerance "
          f"{TOLERANCE:.0%}, the host comparable")  # fmt: skip
    print("| claim | reproduced | not reproduced | inconclusive | shape only | needed | "
          "resolution: too fast x | cliff shift |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    resolution, met = None, True
    for variant in VARIANTS:
        row = table_row(variant, runs, scale, args.repeats, args.claim_pool)
        wanted = variant.wanted
        if variant is VARIANTS[0] and row.factors:
            resolution = statistics.median(row.factors)
        gain = setting_gain(runs, scale, variant.reruns)
        if wanted and gain is not None and resolution and gain < resolution:
            # A lie about a setting that does not change this host's rate by more than it
            # can tell apart gained nothing here, and no measurement here can refute it.
            wanted = None
        said = right(row, wanted, quiet, runs.load)
        if gain is not None:
            said += f" (the setting's gain here {gain:.2f}x, the resolution {resolution:.2f}x)"
        met = met and not said.startswith("WRONG")
        label = variant.label + (" (extrapolated)" if row.extrapolated else "")
        print(f"| {label} | {row.found[REPRODUCED]} | {row.found[NOT_REPRODUCED]} | "
              f"{row.found[INCONCLUSIVE]} | {row.found[SHAPE_ONLY]} | "
              f"{wanted or '-'}: {said} | {spread(row.factors, '{:.2f}')} | "
              f"{spread([s * 100 for s in row.shifts], '{:.0f}%')} |")  # fmt: skip
        for reason, count in row.failing.most_common(1 if variant.wanted else 0):
            print(f"|   {count} x {reason} | | | | | | | |")
    return met


if __name__ == "__main__":
    sys.exit(main())
