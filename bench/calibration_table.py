"""A verification host's calibration table, measured: the spread of every figure the classic
judge compares over --repeats runs of a reference claim (runner/calibration.py, the same code
the worker's calibration runs; no database is written), --rounds times, so the table shows how
much a calibration itself moves from one round to the next. Each round prints the machine's
load beside it (and the most other work and steal beside a run); a round beside more than
--busy-limit cores of other work is reported as such and left out of the table.

The figures: the cliff's place (a fraction of the run) and, as factors (sigma of the logs), the
rate before and after the cliff, terminal / initial, the average rate, the reads per row, the
time per read and the server's CPU share past the cliff. Then what a verification of DEFAULT_REPEATS (4) reruns
could refute with each round's spreads: the smallest factor too fast on the server's CPU share
(the figure that judges a rate where the logs count reads and CPU), against TELL_APART (1.25).

    .venv/bin/python bench/calibration_table.py [--reference demo-tenth] [--repeats 5]
        [--rounds 3] [--target mariadb] [--busy-limit 0.5]

The demo band (300,000 rows a run) takes about 40 s a run here: five runs, three rounds, about
ten minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from runner.calibration import (  # noqa: E402
    REFERENCES,
    CalibrationStopped,
    calibration_target,
    reference_measure,
)
from runner.judge.calibration_spreads import FIGURES, refutable_factor  # noqa: E402
from runner.judge.classic import CPU_SHARE  # noqa: E402
from runner.judge.resolution import DEFAULT_REPEATS, TELL_APART  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default="demo-tenth", choices=sorted(REFERENCES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--target", default="mariadb")
    parser.add_argument("--busy-limit", type=float, default=0.5)
    options = parser.parse_args()
    reference = REFERENCES[options.reference]
    target = calibration_target(options.target)
    folder = tempfile.mkdtemp(prefix="cal-", dir="/tmp")
    os.chmod(folder, 0o755)  # noqa: S103 - a private server's user reaches its directory
    settings.RERUN_RECOVERY_DIR = folder
    settings.RERUN_WORK_DIR = str(Path(folder) / "work")
    print(f"{reference.label}, {options.repeats} runs a round, on {target.name}")
    try:
        rounds = measure_rounds(options, reference, target)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_table(rounds)


def measure_rounds(options, reference, target) -> list[dict]:
    rounds = []
    for number in range(1, options.rounds + 1):
        load_before = os.getloadavg()[0]
        started = time.monotonic()
        try:
            measured = reference_measure(
                target=target,
                reference=reference,
                repeats=options.repeats,
                label=f"bench{number}",
                busy_limit=options.busy_limit,
            )
        except CalibrationStopped as stopped:
            print(f"round {number}: {stopped} (load {load_before:.2f})")
            continue
        load = f"load {load_before:.2f} -> {os.getloadavg()[0]:.2f}"
        print(
            f"round {number}: {time.monotonic() - started:.0f} s, {load}, other work at most "
            f"{measured.other_work or 0:.2f} cores, steal at most {measured.steal or 0:.3f}"
        )
        rounds.append(measured.spreads)
    return rounds


def print_table(rounds: list[dict]) -> None:
    if not rounds:
        raise SystemExit("no round was quiet enough to calibrate")
    print(f"\n{'figure':<18} {'sigma, median of rounds':>24} {'range':>18} dof")
    for figure in FIGURES:
        found = [each[figure] for each in rounds if figure in each]
        if not found:
            print(f"{figure:<18} {'not measured':>24}")
            continue
        sigmas = [each.sigma for each in found]
        print(
            f"{figure:<18} {statistics.median(sigmas):>24.4f} "
            f"{min(sigmas):>8.4f} to {max(sigmas):.4f} {found[0].dof}"
        )
    factors = [refutable_factor(each) for each in rounds if CPU_SHARE in each]
    if factors:
        print(
            f"\nWith {DEFAULT_REPEATS} reruns a verification could refute a claim "
            f"{statistics.median(factors):.2f}x too fast (rounds {min(factors):.2f} to "
            f"{max(factors):.2f}); {TELL_APART}x is the least it must tell apart."
        )


if __name__ == "__main__":
    main()
