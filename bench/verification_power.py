"""Power both ways of the classic judge, on real runs: a claim and doctored copies of it against
every choice of `--repeats` among N reruns of it at scale 1/k, as a verification with that many
repeats would be judged on this host (comparable: the rates are compared too, apart from the
disk where the logs count reads and server CPU). Issue 29's table: the true claim must come out
reproduced, and so must the same claim from a slower disk (its intervals past the cliff 1.5x
slower, its CPU as it was); every lie of 1.25x or more (its times divided; only past the cliff:
"a faster disk") and every cliff moved 20% or more must not. Between (/ 1.15, cliff x1.1) is
printed, not required: what falls there is the verdicts' stated resolution (printed, median).

The claim is the demo entry's log (3,000,000 rows into InnoDB with a 128 MB pool and
innodb_flush_log_at_trx_commit=2, made on this VM while it was quiet); the reruns are the C
benchmark on private MariaDB servers (runner/servers.py) with the pool the scaling rule gives,
one after another (20-30 s each here at 1/10). `--reuse DIR` judges logs kept before
(`--logs DIR` keeps them) instead of running again.

    .venv/bin/python bench/verification_power.py [--runs 9] [--repeats 3] [--scale 10]
        [--claim FILE] [--claim-pool 128] [--logs DIR | --reuse DIR]
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.scaling as scaling  # noqa: E402
from submissions.logparse import parse_log  # noqa: E402
from submissions.setup.scaling import memory_for_scale  # noqa: E402
from submissions.setup.server_settings import MYSQL  # noqa: E402
from submissions.tracks.classic.rerun import judge_curves, shape_of  # noqa: E402
from submissions.tracks.rerun import (  # noqa: E402
    BUSY_CORES,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    VERIFICATION,
    column,
    curve,
    other_work,
)

DEMO_CLAIM = ROOT / "submissions" / "demo_logs" / "c-small-pool-mariadb-3m.log"
TOLERANCE = 0.25  # a contest's default rerun tolerance
# rows, seconds, reads, server CPU at each report; the cores other work kept busy (other_work)
Run = tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]


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


# (label, doctored claim, the verdict it must get: None for printed only)
VARIANTS = (
    ("the true claim", lambda claim: claim, REPRODUCED),
    ("a slower disk: past the cliff x1.5", lambda claim: past_the_cliff(claim, 1.5), REPRODUCED),
    *((f"times / {by:g}", lambda claim, by=by: divided(claim, by), None) for by in (1.15,)),
    *(
        (f"times / {by:g}", lambda claim, by=by: divided(claim, by), NOT_REPRODUCED)
        for by in (1.25, 1.33, 1.5, 3)
    ),
    *(
        (
            f"past the cliff / {by:g}",
            lambda claim, by=by: past_the_cliff(claim, 1 / by),
            NOT_REPRODUCED,
        )
        for by in (1.5, 2)
    ),
    ("cliff x1.1", lambda claim: cliff_moved(claim, 1.1), None),
    *(
        (f"cliff x{by:g}", lambda claim, by=by: cliff_moved(claim, by), NOT_REPRODUCED)
        for by in (1.2, 1.3)
    ),
)


def read_run(path: Path) -> Run:
    parsed = parse_log(io.BytesIO(path.read_bytes()))
    series = parsed.series
    return (*curve(parsed), column(series.read_ops), column(series.server_cpu_s))


def busy_of(path: Path) -> float | None:
    return other_work(parse_log(io.BytesIO(path.read_bytes())))


def collect(args, rows: int, memory: dict[str, str]) -> list[tuple[Run, float | None]]:
    """`--runs` reruns of `rows` rows on a private MariaDB with the `memory` settings, read back
    from their logs (kept in --logs, else in a folder removed at the end)."""
    kept = Path(args.logs) if args.logs else Path(tempfile.mkdtemp(prefix="vp-logs-"))
    kept.mkdir(parents=True, exist_ok=True)
    scaling.LOGS = kept
    base_dir = tempfile.mkdtemp(prefix="vp-", dir="/tmp")  # sockets: keep the path short
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    settings = {**memory, "innodb_flush_log_at_trx_commit": "2"}
    before = set(kept.glob("*.log"))
    try:
        for number in range(1, args.runs + 1):
            run = scaling.run_benchmark("mariadb", settings, rows, base_dir)
            print(f"  run {number}: {scaling.describe(run)}", flush=True)
        made = sorted(set(kept.glob("*.log")) - before)
        return [(read_run(path), busy_of(path)) for path in made]
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
        if not args.logs:
            shutil.rmtree(kept, ignore_errors=True)


def verdicts(claim: Run, runs: list[tuple[Run, float | None]], repeats: int, scale: int):
    """The verdict for every choice of `repeats` runs (each with the cores other work kept busy
    during it, as a worker judges them), what failed when it was not reproduced (the headline,
    cut to its first words) and each verdict's resolution."""
    found, failing, resolutions = Counter(), Counter(), []
    rows, seconds, reads, cpu = claim
    for pairs in itertools.combinations(runs, repeats):
        chosen = [run for run, _ in pairs]
        busy = max((each for _, each in pairs if each is not None), default=None)
        verdict, figures = judge_curves(
            (rows, seconds), [(r, s) for r, s, _, _ in chosen], kind=VERIFICATION, scale=scale,
            host_comparable=True, tolerance=TOLERANCE, claimed_reads=reads,
            rerun_reads=[each[2] for each in chosen], claimed_cpu=cpu,
            rerun_cpu=[each[3] for each in chosen], busy_cores=busy,
        )  # fmt: skip
        found[verdict.verdict] += 1
        resolutions.append(figures.get("resolution", {}))
        if verdict.verdict != REPRODUCED:
            reason = figures.get("headline", verdict.message)
            failing[" ".join(reason.split()[:9])] += 1
    return found, failing, resolutions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--claim", default=str(DEMO_CLAIM))
    parser.add_argument("--claim-pool", type=int, default=128, help="MB")
    parser.add_argument("--logs", default="", help="a folder to keep the reruns' logs in")
    parser.add_argument("--reuse", default="", help="judge the logs in this folder instead")
    args = parser.parse_args()
    claim = read_run(Path(args.claim))
    rows = int(claim[0][-1]) // args.scale
    # The memory a verification's private server gets: the service's own function.
    memory = memory_for_scale(
        {"innodb_buffer_pool_size": f"{args.claim_pool}M"}, family=MYSQL, scale=args.scale,
        memory_gb=0,
    ).settings  # fmt: skip
    print(f"Load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.reuse:
        kept = sorted(Path(args.reuse).glob("*.log"))
        runs = [(read_run(path), busy_of(path)) for path in kept]
        print(f"{len(runs)} reruns kept in {args.reuse}")
    else:
        shown = ", ".join(f"{key}={value}" for key, value in memory.items())
        print(f"{args.runs} reruns at 1/{args.scale}: {rows:,} rows, {shown}")
        runs = collect(args, rows, memory)
    if len(runs) < args.repeats:
        raise SystemExit(f"{len(runs)} reruns: fewer than --repeats {args.repeats}")
    choices = len(list(itertools.combinations(range(len(runs)), args.repeats)))
    print(f"\nEvery {args.repeats} of {len(runs)} reruns ({choices} verifications), tolerance "
          f"{TOLERANCE:.0%}, the host comparable:")  # fmt: skip
    busy = [each for _, each in runs if each is not None]
    quiet = not busy or max(busy) < BUSY_CORES
    print(
        f"Other work beside the reruns: {min(busy):.2f} to {max(busy):.2f} cores "
        f"({'quiet' if quiet else 'busy: a verdict may be inconclusive, never the wrong way'})"
        if busy
        else "Other work beside the reruns: not measured"
    )
    met = True
    shown_resolution = False
    for label, doctor, wanted in VARIANTS:
        found, failing, resolutions = verdicts(doctor(claim), runs, args.repeats, args.scale)
        opposite = NOT_REPRODUCED if wanted == REPRODUCED else REPRODUCED
        right = wanted is None or (
            found[wanted] == choices
            if quiet
            else found[opposite] == 0 and found[wanted] + found[INCONCLUSIVE] == choices
        )
        met = met and right
        shown = ", ".join(f"{verdict} {count}" for verdict, count in found.most_common())
        said = "printed, not required" if wanted is None else ("right" if right else "WRONG")
        print(f"  {label}: {shown} ({said})")
        for reason, count in failing.most_common(2):
            print(f"      {count} x {reason}...")
        if not shown_resolution:
            factors = [each.get("too_fast_factor") for each in resolutions]
            factors = [each for each in factors if each is not None]
            shifts = [each["cliff_shift"] for each in resolutions if "cliff_shift" in each]
            if factors and shifts:
                print(
                    f"      resolution (median of the {choices}): a claim "
                    f"{float(np.median(factors)):.2f}x too fast, a cliff "
                    f"{float(np.median(shifts)):.0%} of the run away"
                )
            shown_resolution = True
    print(f"\nPower both ways: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
