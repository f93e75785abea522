"""Power both ways of the classic judge, on real runs: a claim against every choice of
`--repeats` among N reruns of it at scale 1/k, as a verification with that many repeats would
be judged on this host (comparable: the absolute rates are compared too). A true claim must come
out reproduced; the same log with its times divided by 3 (a consistent log with the true shape:
the issue's false claim) must not. Divided by 1.5 it is printed too, not required: a claim 1.5
times too fast lies at the edge of a 25% tolerance, refuted or not as the reruns' spread falls.

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
from submissions.tracks.classic.rerun import judge_curves  # noqa: E402
from submissions.tracks.rerun import REPRODUCED, VERIFICATION, curve  # noqa: E402

DEMO_CLAIM = ROOT / "submissions" / "demo_logs" / "c-small-pool-mariadb-3m.log"
TOLERANCE = 0.25  # a contest's default rerun tolerance
FALSE_CLAIMS = (3.0, 1.5)  # the claim's times divided by these
REQUIRED = {1.0, 3.0}  # what must come out right; the others are printed


def read_curve(path: Path) -> tuple[np.ndarray, np.ndarray]:
    return curve(parse_log(io.BytesIO(path.read_bytes())))


def collect(args, rows: int, memory: dict[str, str]) -> list[tuple[np.ndarray, np.ndarray]]:
    """`--runs` reruns of `rows` rows on a private MariaDB with the `memory` settings."""
    if args.logs:
        scaling.LOGS = Path(args.logs)
        scaling.LOGS.mkdir(parents=True, exist_ok=True)
    base_dir = tempfile.mkdtemp(prefix="vp-", dir="/tmp")  # sockets: keep the path short
    settings = {**memory, "innodb_flush_log_at_trx_commit": "2"}
    runs = []
    try:
        for number in range(1, args.runs + 1):
            run = scaling.run_benchmark("mariadb", settings, rows, base_dir)
            print(f"  run {number}: {scaling.describe(run)}", flush=True)
            runs.append((run.rows, run.seconds))
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    return runs


def verdicts(claim, runs, repeats: int, scale: int) -> tuple[Counter, Counter]:
    """The verdict for every choice of `repeats` runs, and what failed when it was not
    reproduced (the message's clauses, cut to their first words)."""
    found, failing = Counter(), Counter()
    for chosen in itertools.combinations(runs, repeats):
        verdict, _ = judge_curves(
            claim, list(chosen), kind=VERIFICATION, scale=scale, host_comparable=True,
            tolerance=TOLERANCE,
        )  # fmt: skip
        found[verdict.verdict] += 1
        if verdict.verdict != REPRODUCED:
            reasons = verdict.message.rsplit("not reproduced: ", 1)[-1].split("; the claim")
            failing.update(" ".join(reason.split()[:6]) for reason in reasons)
    return found, failing


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
    claim = read_curve(Path(args.claim))
    rows = int(claim[0][-1]) // args.scale
    # The memory a verification's private server gets: the service's own function.
    memory = memory_for_scale(
        {"innodb_buffer_pool_size": f"{args.claim_pool}M"}, family=MYSQL, scale=args.scale,
        memory_gb=0,
    ).settings  # fmt: skip
    print(f"Load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.reuse:
        runs = [read_curve(path) for path in sorted(Path(args.reuse).glob("*.log"))]
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
    rows_, seconds = claim
    met = True
    for label, divided in (("the true claim", 1.0), *((f"times / {d:g}", d) for d in FALSE_CLAIMS)):
        found, failing = verdicts((rows_, seconds / divided), runs, args.repeats, args.scale)
        wanted = found[REPRODUCED] == choices if divided == 1.0 else not found[REPRODUCED]
        required = divided in REQUIRED
        met = met and (wanted or not required)
        shown = ", ".join(f"{verdict} {count}" for verdict, count in found.most_common())
        said = ("as it must" if wanted else "WRONG") if required else "printed, not required"
        print(f"  {label}: {shown} ({said})")
        for reason, count in failing.most_common(3):
            print(f"      {count} x {reason}...")
    print(f"\nPower both ways: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
