"""How fast parse_log reads big logs of every tabular format, against csv.reader merely
splitting the same file, timed as interleaved pairs in fresh processes (bench/ab.py).

    .venv/bin/python bench/parse_speed.py [--lines 2000000] [--pairs 5] [--regenerate]

Generates in var/bench/ (ignored by git): the 2023-format Python-iibench log of `--lines` lines
(TAB separated, 17 columns, rows growing, deletes in the second half and queries throughout, so
the heaviest path is timed; 184 MB) and its .gz, and logs of half as many reports in the other
tabular formats: Java iibench's TSV file, this project's C benchmark, Python iibench 2009-2019
(space separated). For each: csv.reader's and parse_log's median seconds, the median of the
pairs' ratios with its range (goal: at most 1.0, parse_log as fast as csv.reader splits) and
the parser's peak memory over its interpreter's baseline.
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import ab  # noqa: E402
from testing.logs import long_python_log as generate  # noqa: E402

OUT = ROOT / "var" / "bench"


def generate_java_tsv(path: Path, lines: int) -> None:
    """Java iibench's TSV file: a report every 5 s, rates with two decimals, the closing line
    without the exceptions column."""
    rng = random.Random(43)
    rows = 0
    with path.open("w") as out:
        out.write("tot_inserts\telap_secs\tcum_ips\tint_ips\tcum_qry_avg\tint_qry_avg\tcum_qpm"
                  "\tint_qpm\texceptions\n")  # fmt: skip
        for i in range(1, lines + 1):
            new_rows = int(max(200.0, 90_000.0 / (1 + i / 20_000)) * (0.9 + rng.random() / 5) * 5)
            rows += new_rows
            out.write(f"{rows}\t{i * 5}\t{rows / (i * 5):.2f}\t{new_rows / 5:.2f}\t"
                      f"{rng.random() * 9:.2f}\t{rng.random() * 9:.2f}\t{rng.random() * 900:.2f}\t"
                      f"{rng.random() * 900:.2f}\t0\n")  # fmt: skip
        out.write(f"{rows}\t{lines * 5}\t{rows / (lines * 5):.2f}\t0.00\t0.00\t0.00\t0.00\t0.00\n")


def generate_c(path: Path, lines: int) -> None:
    """This project's C benchmark: `# ` header, a report every 1,000 rows, queries throughout,
    deletes in the second half, the summary."""
    rng = random.Random(44)
    rows = deleted = queries = 0
    seconds = 0.0
    with path.open("w") as out:
        out.write(f"# iibench-c version=1.0 format=1\n# param rows={lines * 1000}\n"
                  "# param report_every=1000\n# param rows_per_commit=1000\n# backend mysql\n"
                  "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries"
                  "\tinterval_qps\n")  # fmt: skip
        for i in range(lines):
            interval = 1000 / (max(2000.0, 90_000.0 / (1 + i / 50_000)) * (0.9 + rng.random() / 5))
            seconds += interval
            rows += 1000
            dps = 1000 / interval if i > lines // 2 else 0.0
            deleted += 1000 if i > lines // 2 else 0
            new_queries = rng.randrange(0, 40)
            queries += new_queries
            out.write(f"{rows}\t{seconds:.3f}\t{1000 / interval:.1f}\t{rows / seconds:.1f}\t"
                      f"{deleted}\t{dps:.1f}\t{queries}\t{new_queries / interval:.1f}\n")  # fmt: skip
        out.write(f"# summary status=completed rows={rows} seconds={seconds:.3f} "
                  f"average_ips={rows / seconds:.1f}\n")  # fmt: skip


def generate_python_2009(path: Path, lines: int) -> None:
    """Python iibench 2009-2019: space separated, a report every 100,000 rows."""
    rng = random.Random(45)
    total = 0.0
    queries = 0
    with path.open("w") as out:
        out.write("#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps "
                  "last_qps\n")  # fmt: skip
        for i in range(1, lines + 1):
            rows = i * 100_000
            interval = 100_000 / (
                max(200.0, 90_000.0 / (1 + i / 20_000)) * (0.9 + rng.random() / 5)
            )
            total += interval
            new_queries = rng.randrange(0, 4000)
            queries += new_queries
            out.write(f"{rows} {interval:.1f} {total:.1f} {rows / total:.1f} {rows} "
                      f"{100_000 / interval:.1f} {queries} {queries / total:.1f} "
                      f"{new_queries / interval:.1f}\n")  # fmt: skip
        out.write("Done\n")


# name, file stem, generator, lines (fraction of --lines), csv.reader's delimiter
INPUTS = (
    ("Python iibench 2023", "python-2023", generate, 1.0, "\t"),
    ("Java iibench TSV", "java-tsv", generate_java_tsv, 0.5, "\t"),
    ("C benchmark", "iibench-c", generate_c, 0.5, "\t"),
    ("Python iibench 2009-2019", "python-2009", generate_python_2009, 0.5, " "),
)
RATIO_GOAL = 1.0

CSV_CHILD = """
import csv, gzip, json, time
path = {path!r}
start = time.perf_counter()
opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt", newline="") as text:
    for _row in csv.reader(text, delimiter={delimiter!r}):
        pass
print(json.dumps({{"seconds": time.perf_counter() - start}}))
"""

PARSE_CHILD = """
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


def prepare(stem: str, make, lines: int, regenerate: bool) -> Path:
    path = OUT / f"{stem}-{lines}.log"
    if regenerate or not path.exists():
        print(f"generating {path} ...", flush=True)
        make(path, lines)
    return path


def gzipped(path: Path, regenerate: bool) -> Path:
    gz = path.with_suffix(".log.gz")
    if regenerate or not gz.exists():
        print(f"compressing {gz} ...", flush=True)
        with path.open("rb") as plain, gzip.open(gz, "wb", compresslevel=6) as packed:
            while block := plain.read(1 << 20):
                packed.write(block)
    return gz


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("--only", help="one input, by file stem (python-2023, java-tsv, ...)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    cases = []
    for label, stem, make, share, delimiter in INPUTS:
        if args.only and stem != args.only:
            continue
        path = prepare(stem, make, int(args.lines * share), args.regenerate)
        cases.append((label, path, delimiter))
        if stem == "python-2023":
            cases.append((f"{label}, gzipped", gzipped(path, args.regenerate), delimiter))
    print(f"parse_log against csv.reader, {args.pairs} interleaved pairs in fresh processes "
          "each; medians, the ratio's range in brackets")  # fmt: skip
    header = (f"  {'log':<34} {'size':>7} {'csv.reader':>11} {'parse_log':>10} "
              f"{'ratio (range)':>20} {'goal':>9} {'peak':>8}")  # fmt: skip
    print(header)
    missed = []
    for label, path, delimiter in cases:
        pairs = ab.interleaved(
            CSV_CHILD.format(path=str(path), delimiter=delimiter),
            PARSE_CHILD.format(root=str(ROOT), path=str(path)),
            pairs=args.pairs,
        )
        peak = max(run["peak_mb"] for run in pairs.b)
        verdict = "ok" if pairs.ratio <= RATIO_GOAL else "MISSED"
        if pairs.ratio > RATIO_GOAL:
            missed.append(label)
        print(f"  {label:<34} {path.stat().st_size / 1e6:>5.0f} MB {pairs.median('a'):>9.2f} s "
              f"{pairs.median('b'):>8.2f} s {pairs.spread():>20} "
              f"{'<= ' + format(RATIO_GOAL, '.1f') + ' ' + verdict:>9} {peak:>5.0f} MB")  # fmt: skip
    print(
        f"goal, parse_log at most {RATIO_GOAL:.1f}x csv.reader for every tabular format: "
        f"{'met' if not missed else 'MISSED for ' + ', '.join(missed)}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
