"""The open dataset's build at 10,000 and 100,000 published entries (`--sizes`): its time, its
peak memory and its files' sizes, each size in a fresh process on a scratch PostgreSQL database
(OPEN_DATA_BENCH_DATABASE_URL, default iibench_open_data_bench on 127.0.0.1, dropped and made
again). The entries are filled as bench/leaderboard_speed.py fills a board (one made by the
ORM, the rest copied by one INSERT ... SELECT), then every copy gets a series of `--samples`
reports (the template's, copied by one more INSERT). The claim measured: the build's memory
does not grow with the registry (entries are written 1,000 at a time, series one entry at a
time), so the peak at 100,000 entries is about the peak at 10,000. Peak = VmHWM after the
build with the high-water mark reset (/proc/self/clear_refs) once the database is filled.

    python bench/open_dataset_speed.py [--sizes 10000,100000] [--samples 100]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATABASE_URL = os.environ.get(
    "OPEN_DATA_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_open_data_bench"
)


def vm_kib(name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def one_size(entries: int, samples: int) -> dict:
    # leaderboard_speed's generator, on this bench's own scratch database.
    os.environ["BENCH_DATABASE_URL"] = DATABASE_URL
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="iibench-open-data-")
    from bench import leaderboard_speed as board

    board.SAMPLES_PER_ENTRY = samples
    board.recreate_database()
    from django.core.management import call_command
    from django.db import connection

    from submissions.opendata.state import open_dataset_refresh

    call_command("migrate", verbosity=0)
    contest = board.fill_contest(entries)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO submissions_sampleseries (submission_id, count, columns, preview) "
            "SELECT entry.id, template.count, template.columns, '{}' "
            "FROM submissions_submission AS entry, submissions_sampleseries AS template "
            "WHERE entry.contest_id = %s AND entry.id <> template.submission_id",
            [contest.pk],
        )
    Path("/proc/self/clear_refs").write_text("5")
    before = vm_kib("VmRSS")
    started = time.perf_counter()
    outcome = open_dataset_refresh()
    seconds = time.perf_counter() - started
    from submissions.models import OpenDataset

    manifest = OpenDataset.objects.get().manifest
    connection.close()
    return {
        "entries": entries,
        "outcome": outcome,
        "seconds": seconds,
        "rss_before_mib": before / 1024,
        "peak_mib": vm_kib("VmHWM") / 1024,
        "files": {item["name"]: [item["rows"], item["bytes"]] for item in manifest["files"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--samples", type=int, default=100, help="reports per entry's series")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.samples)))
        return
    print(f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for size in (int(text) for text in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--samples", str(args.samples)],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        found = json.loads(done.stdout.strip().splitlines()[-1])
        files = ", ".join(
            f"{name} {rows:,} rows {size_bytes / 2**20:.1f} MiB"
            for name, (rows, size_bytes) in found["files"].items()
        )
        print(
            f"{size:>7,} entries x {args.samples} reports: built in {found['seconds']:.1f} s, "
            f"RSS {found['rss_before_mib']:.0f} MiB before, peak {found['peak_mib']:.0f} MiB; "
            f"{files}; load now {os.getloadavg()[0]:.2f}"
        )


if __name__ == "__main__":
    main()
