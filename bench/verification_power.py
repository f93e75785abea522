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

    .venv/bin/python bench/verification_power.py [--claims 5] [--claim-rows 3000000]
        [--claim-pool 128] [--scales 5,10] [--runs-per-claim 1] [--setup-runs 3]
        [--repeats 3] [--logs DIR] [--quick]

`--logs DIR` keeps every run (claims, reruns) there and reuses the runs already in it, so the
table can be judged again without running anything. About 35 minutes with the defaults on the
quiet 2-core VM; `--quick` (one 960,000-row claim with a 64 MB pool at 1/4 and 1/8) about 3.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.scaling_sweeps as scaling  # noqa: E402
from runner.judge.classic import judge_curves, shape_of  # noqa: E402
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
    parsed = parse_log(io.BytesIO(path.read_bytes()))
    series = parsed.series
    stated = parsed.parameters.get("server_version")
    return Made(
        (*curve(parsed), column(series.read_ops), column(series.server_cpu_s)),
        other_work(parsed),
        wall,
        None if stated is None else server_major(str(stated.value)),
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


def collect(args, folder: Path, base_dir: str) -> Runs:
    """The claims, each followed by its share of the declared reruns at every scale (so each
    claim is timed beside its own reruns), then the setup lies' reruns."""
    runs = Runs()
    claim_settings = {"innodb_buffer_pool_size": f"{args.claim_pool}M", FLUSH: CLAIM_FLUSH}
    for number in range(1, args.claims + 1):
        claim = make(claim_settings, args.claim_rows, folder / "claims" / f"{number}.log", base_dir)
        runs.claims.append(claim)
        for scale in args.scales:
            settings = {**rerun_memory(args.claim_pool, scale), FLUSH: CLAIM_FLUSH}
            made = [
                make(settings, args.claim_rows // scale,
                     folder / f"1-{scale}-declared" / f"{number}-{each}.log", base_dir)
                for each in range(1, args.runs_per_claim + 1)
            ]  # fmt: skip
            runs.reruns.setdefault((scale, "declared"), []).extend(made)
            if scale == max(args.scales):
                runs.pairs += [(claim.wall, each.wall) for each in made]
    for scale in args.scales:
        lies = {
            "flush": {**rerun_memory(args.claim_pool, scale), FLUSH: DEFAULT_FLUSH},
            "pool": {**rerun_memory(2 * args.claim_pool, scale), FLUSH: CLAIM_FLUSH},
        }
        for which, settings in lies.items():
            runs.reruns[(scale, which)] = [
                make(settings, args.claim_rows // scale,
                     folder / f"1-{scale}-{which}" / f"{each}.log", base_dir)
                for each in range(1, args.setup_runs + 1)
            ]  # fmt: skip
    return runs


def judged(claim: Run, chosen: list[Made], scale: int, pool_mb: int) -> tuple[str, dict, bool]:
    """One verification as a worker judges it: the classic judge, then the scaling rule's
    measured range (outside it a reproduction is at best shape_only)."""
    rows, seconds, reads, cpu = claim
    busy = max((each.busy for each in chosen if each.busy is not None), default=None)
    verdict, figures = judge_curves(
        (rows, seconds), [each.run[:2] for each in chosen], kind=VERIFICATION, scale=scale,
        host_comparable=True, tolerance=TOLERANCE, claimed_reads=reads,
        rerun_reads=[each.run[2] for each in chosen], claimed_cpu=cpu,
        rerun_cpu=[each.run[3] for each in chosen], busy_cores=busy,
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
        for chosen in itertools.combinations(reruns, repeats):
            verdict, figures, outside = judged(
                doctored, list(chosen), scale, pool_mb * variant.pool_factor
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


def right(row: Row, wanted: str | None, quiet: bool) -> str:
    if wanted is None:
        return "printed, not required"
    total = sum(row.found.values())
    if not total:
        return "WRONG: nothing judged"
    opposite = NOT_REPRODUCED if wanted == REPRODUCED else REPRODUCED
    if row.found[wanted] == total:
        return "right"
    if (
        not quiet
        and row.found[opposite] == 0
        and row.found[wanted] + row.found[INCONCLUSIVE] == total
    ):
        return "right (inconclusive ones: a busy host)"
    return "WRONG"


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


def load() -> str:
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
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: one 960,000-row claim, 64 MB pool, 1/4 and 1/8")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.claims, args.claim_rows, args.claim_pool, args.scales = 1, 960_000, 64, "4,8"
        args.runs_per_claim = 3
    args.scales = sorted({int(each) for each in args.scales.split(",") if each.strip()})
    return args


def main() -> int:
    args = arguments()
    steal = Steal()
    began = time.monotonic()
    print(f"Start: {load()}", flush=True)
    folder = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="vp-logs-"))
    base_dir = tempfile.mkdtemp(prefix="vp-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    try:
        runs = collect(args, folder, base_dir)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
        if not args.logs:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"Runs made: {load()}, CPU stolen {steal.share()}, {time.monotonic() - began:,.0f} s")
    busy = [
        each.busy for reruns in runs.reruns.values() for each in reruns if each.busy is not None
    ]
    quiet = not busy or max(busy) < BUSY_CORES
    print(
        f"Other work beside the reruns: {min(busy):.2f} to {max(busy):.2f} cores "
        f"({'quiet' if quiet else 'busy: a verdict may be inconclusive, never the wrong way'})"
        if busy
        else "Other work beside the reruns: not measured"
    )
    claims = [each.wall for each in runs.claims]
    print(f"{len(runs.claims)} claims of {args.claim_rows:,} rows, {args.claim_pool} MB pool, "
          f"{FLUSH}={CLAIM_FLUSH}: {min(claims):.0f} to {max(claims):.0f} s")  # fmt: skip
    met = True
    for scale in args.scales:
        declared = runs.reruns[(scale, "declared")]
        if len(declared) < args.repeats:
            raise SystemExit(f"{len(declared)} reruns at 1/{scale}: fewer than --repeats")
        memory = ", ".join(f"{k}={v}" for k, v in rerun_memory(args.claim_pool, scale).items())
        choices = len(list(itertools.combinations(declared, args.repeats)))
        print(f"\nAt 1/{scale} ({memory}): every {args.repeats} of {len(declared)} reruns "
              f"({choices} verifications) for each of {len(runs.claims)} claims; setup lies "
              f"against {args.setup_runs} reruns of what they declare; tolerance "
              f"{TOLERANCE:.0%}, the host comparable")  # fmt: skip
        print("| claim | reproduced | not reproduced | inconclusive | shape only | needed | "
              "resolution: too fast x | cliff shift |")  # fmt: skip
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        resolution = None
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
            said = right(row, wanted, quiet)
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
    if runs.pairs:
        shares = [rerun / claim for claim, rerun in runs.pairs]
        print(f"\nA run at 1/{max(args.scales)} took {statistics.median(shares):.1%} of its "
              f"claim's time (median of {len(shares)} pairs; {min(shares):.1%} to "
              f"{max(shares):.1%}): goal under {1 / max(args.scales):.1%}")  # fmt: skip
    print(f"\nEnd: {load()}, CPU stolen over the bench {steal.share()}, "
          f"{time.monotonic() - began:,.0f} s in all")  # fmt: skip
    print(f"Power both ways: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
