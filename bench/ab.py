"""Interleaved A/B timing in fresh processes: the one way bench/ turns two timings into a ratio.

Each pair runs A then B (the next pair B then A, so neither always goes first), each in a new
interpreter that prints one JSON object; the ratio of a pair is B's seconds over A's. A busy
machine slows both sides of a pair alike, so the median of the pairs' ratios is what can be
trusted, and the range says how much the machine moved meanwhile.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairs:
    a: list[dict]  # what each A run printed, in order
    b: list[dict]
    ratios: list[float]  # B's seconds / A's seconds, per pair

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    def median(self, side: str, key: str = "seconds") -> float:
        return statistics.median(run[key] for run in getattr(self, side))

    def spread(self) -> str:
        """The median ratio with its range, e.g. `0.52x (0.47-0.61)`."""
        return f"{self.ratio:.2f}x ({min(self.ratios):.2f}-{max(self.ratios):.2f})"


def run_child(code: str) -> dict:
    """Run `code` in a fresh interpreter; the JSON object it prints last."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"a bench child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def interleaved(a: str | Callable[[], dict], b: str | Callable[[], dict], pairs: int = 5) -> Pairs:
    """`pairs` pairs of A and B; each side is the code of a child process (or a callable that
    starts one and returns what it printed)."""
    start_a = a if callable(a) else (lambda: run_child(a))
    start_b = b if callable(b) else (lambda: run_child(b))
    runs_a, runs_b, ratios = [], [], []
    for number in range(pairs):
        if number % 2:
            second = start_b()
            first = start_a()
        else:
            first = start_a()
            second = start_b()
        runs_a.append(first)
        runs_b.append(second)
        ratios.append(second["seconds"] / first["seconds"])
    return Pairs(runs_a, runs_b, ratios)
