"""How often each physics rule (submissions/contests/physics.py, docs/physics.md) catches a
careless fake, and that none fails an honest log.

Makes real C benchmark logs on this machine against the shared MariaDB (a database of its own,
dropped after; InnoDB with one and with two writers), judges each as it is and with its times
divided by 1.5, 2 and 3 (rates multiplied, the arithmetic consistent, the cost columns
untouched), declared truthfully from the log's own `# machine` lines, and prints per rule how
many of the fakes it caught. Exits 1 when any rule fails an honest log.

    .venv/bin/python bench/physics_power.py [--runs 3] [--rows 300000] [--every 100000]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from submissions.contests.machine import MACHINE_RULES  # noqa: E402
from submissions.contests.physics import PHYSICS_RULES  # noqa: E402
from submissions.contests.rules import DeclaredSetup, Entry, RuleSet, Status  # noqa: E402
from submissions.logparse import parse_log  # noqa: E402
from testing.logs import c_log_faster, c_log_made_here  # noqa: E402

BINARY = ROOT / "runner" / "iibench" / "iibench"
FACTORS = (1.5, 2.0, 3.0)


def truthful(log) -> DeclaredSetup:
    machine = log.machine
    return DeclaredSetup(
        sockets=int(machine["sockets"].value),
        cores=int(machine["cores"].value),
        memory_gb=round(int(machine["memory_bytes"].value) / 2**30),
        drives=1,
        raid_level="",
        direct_attached=True,
        os="Linux",
        server_version="",
        storage_engine="InnoDB",
        drive_kind="ssd",  # this VM's virtual disk: what its owner would declare
    )


def judge(data: bytes, setup: DeclaredSetup | None = None) -> tuple[dict, DeclaredSetup]:
    log = parse_log(io.BytesIO(data))
    setup = setup or truthful(log)
    entry = Entry(log=log, figures=None, setup=setup, submitted_at=datetime.now(UTC))
    rules = RuleSet(target_rows=1, rows_per_commit=1000, max_rows_per_insert=1000,
                    report_every_rows=1)  # fmt: skip
    return {rule.id: rule.check(entry, rules) for rule in (*PHYSICS_RULES, *MACHINE_RULES)}, setup


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per writer count")
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--every", type=int, default=100_000)
    args = parser.parse_args()
    logs = []
    for writers in (1, 2):
        for run in range(args.runs):
            print(f"  run {run + 1} of {args.runs}, {writers} writer(s)...", flush=True)
            logs.append(
                c_log_made_here(
                    str(BINARY),
                    database=f"iibench_physics_bench_{os.getpid()}",
                    rows=args.rows,
                    every=args.every,
                    extra=("--writers", str(writers)),
                )
            )
    rule_ids = [rule.id for rule in (*PHYSICS_RULES, *MACHINE_RULES)]
    caught = {rule: dict.fromkeys(FACTORS, 0) for rule in rule_ids}
    any_rule = dict.fromkeys(FACTORS, 0)
    honest_failures = []
    for data in logs:
        verdicts, setup = judge(data)
        honest_failures += [v.message for v in verdicts.values() if v.status == Status.FAIL]
        for factor in FACTORS:
            faked, _ = judge(c_log_faster(data, factor), setup)
            failed = {rule for rule, v in faked.items() if v.status == Status.FAIL}
            for rule in failed:
                caught[rule][factor] += 1
            any_rule[factor] += bool(failed)
    total = len(logs)
    print(f"\nPhysics rules on {total} real C logs made here ({args.rows:,} rows, a report "
          f"every {args.every:,}; InnoDB, 1 and 2 writers), times divided by:")  # fmt: skip
    print(f"  {'rule':24} " + " ".join(f"{'/' + format(f, 'g'):>7}" for f in FACTORS))
    for rule in rule_ids:
        cells = " ".join(f"{caught[rule][f]:>3}/{total:<3}" for f in FACTORS)
        print(f"  {rule:24} {cells}")
    print(f"  {'any rule':24} " + " ".join(f"{any_rule[f]:>3}/{total:<3}" for f in FACTORS))
    print(f"  honest logs failed by a rule: {len(honest_failures)} of {total}")
    for message in honest_failures:
        print(f"    {message}")
    return 1 if honest_failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
