"""How fast parse_log reads a big Python-iibench log, against csv.reader merely reading it.

    /work/main/.venv/bin/python bench/parse_speed.py [--lines 2000000] [--regenerate]

Generates var/bench/python-2023-<lines>.log (TAB separated, the 17 columns of the 2023
format, rows growing, with deletes and queries so the heaviest path is timed) and its .gz,
then prints the times, their ratio (goal: the parser takes at most 3x csv.reader's time) and
the parser's peak memory measured in a child process (goal: under 300 MB).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "bench"
HEADER = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)
RATE_GOAL = 3.0
MEMORY_GOAL_MB = 300


def generate(path: Path, lines: int) -> None:
    """A long run reported every 10 s: the insert rate sags as the table grows."""
    rng = random.Random(42)
    inserted = deleted = queries = 0
    elapsed = 0.0
    with path.open("w") as out:
        out.write(HEADER + "\n")
        for i in range(lines):
            interval = 10.0 + rng.random() / 10
            elapsed += interval
            ips = max(200.0, 90_000.0 / (1 + i / 20_000)) * (0.9 + rng.random() / 5)
            new_rows = int(ips * interval)
            inserted += new_rows
            dps = ips if i > lines // 2 else 0.0
            deleted += int(dps * interval)
            qps = 400 + rng.random() * 50
            queries += int(qps * interval)
            out.write(
                f"{interval:.1f}\t{elapsed:.1f}\t{ips:.0f}\t{inserted / elapsed:.0f}\t"
                f"{dps:.0f}\t{deleted / elapsed:.0f}\t{qps:.0f}\t{queries / elapsed:.0f}\t"
                f"{rng.randrange(2000, 90000)}\t{rng.randrange(0, 9000)}\t"
                f"{rng.randrange(500, 50000)}\t{inserted}\t{deleted}\t{queries}\t0\t0\t0\n"
            )
        out.write(f"Totals: {elapsed:.1f} secs, {inserted / elapsed:.1f} rows/sec, ")
        out.write(f"{inserted} rows, 0 0 0 insert-delete-query retry\nDone\n")


def time_csv(path: Path) -> float:
    start = time.perf_counter()
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as text:
        for _row in csv.reader(text, delimiter="\t"):
            pass
    return time.perf_counter() - start


CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from submissions.logparse import parse_log
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
with open({path!r}, "rb") as source:
    parsed = parse_log(source, max_expanded_bytes=1 << 34)
seconds = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": seconds, "reports": len(parsed.series),
                  "peak_mb": (after - before) / 1024, "rss_mb": after / 1024}}))
"""


def time_parse(path: Path) -> dict:
    """Parse in a fresh process, so its peak memory is this parse's alone."""
    code = CHILD.format(root=str(ROOT), path=str(path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--regenerate", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    log = OUT / f"python-2023-{args.lines}.log"
    gz = log.with_suffix(".log.gz")
    if args.regenerate or not log.exists():
        print(f"generating {log} ...", flush=True)
        generate(log, args.lines)
    if args.regenerate or not gz.exists():
        print(f"compressing {gz} ...", flush=True)
        with log.open("rb") as plain, gzip.open(gz, "wb", compresslevel=6) as packed:
            while block := plain.read(1 << 20):
                packed.write(block)
    print(f"log: {log.stat().st_size / 1e6:,.0f} MB, {args.lines:,} report lines")
    for path in (log, gz):
        reader_seconds = min(time_csv(path) for _ in range(2))
        runs = [time_parse(path) for _ in range(2)]
        best = min(runs, key=lambda run: run["seconds"])
        assert best["reports"] == args.lines, best
        ratio = best["seconds"] / reader_seconds
        peak = max(run["peak_mb"] for run in runs)
        rate_verdict = "ok" if ratio <= RATE_GOAL else "MISSED"
        memory_verdict = "ok" if peak < MEMORY_GOAL_MB else "MISSED"
        print(
            f"{path.name}: csv.reader {reader_seconds:.2f} s, parse_log {best['seconds']:.2f} s, "
            f"ratio {ratio:.2f}x (goal <= {RATE_GOAL:.0f}x: {rate_verdict}), "
            f"peak memory {peak:.0f} MB over the baseline "
            f"(goal < {MEMORY_GOAL_MB} MB: {memory_verdict}), "
            f"process peak {best['rss_mb']:.0f} MB"
        )


if __name__ == "__main__":
    main()
