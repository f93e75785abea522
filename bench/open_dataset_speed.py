"""The open dataset's build at 10,000 and 100,000 published entries (`--sizes`): its time, its
peak memory and its files' sizes, each size in a fresh process on a scratch PostgreSQL database
(OPEN_DATA_BENCH_DATABASE_URL, default iibench_open_data_bench on 127.0.0.1, dropped and made
again). The entries are filled as bench/leaderboard_speed.py fills a board (one made by the
ORM, the rest copied by one INSERT ... SELECT), then every copy gets a series of `--samples`
reports (the template's, copied by one more INSERT). The claim measured: the build's memory
does not grow with the registry (entries are written 1,000 at a time, series one entry at a
time), so the peak at 100,000 entries is about the peak at 10,000. Peak = VmHWM after the
build with the high-water mark reset (/proc/self/clear_refs) once the database is filled.

Then the incremental builds (issue 44; the dataset is cut in parts of OPEN_DATA_PART_IDS ids,
which parts changed read from the change log, a part amended by deltas, the ranks a file per
contest): one entry edited mid-registry, one anonymous entry deleted mid-registry, one named
entry deleted mid-registry (its name withdrawn: its part is written whole again), one upload
that moves no rank (ineligible), one upload ranked first (every ranked entry moves down a
place: its contest's ranks file is written again, no other part), each `--repeats` times in
turn, timed from the sweep's start to the new build served; median and range, with the load
average at each, the parts rebuilt whole, amended and kept and the contests whose ranks file
was written. Every other entry (even ids) is anonymous, as an entrant who does not publish
their name is.

    python bench/open_dataset_speed.py [--sizes 10000,100000] [--samples 100] [--part-ids 10000]
        [--repeats 5]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
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


UPLOADS = itertools.count()


def vm_kib(name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    return 0


def one_size(entries: int, samples: int, part_ids: int, repeats: int) -> dict:
    # leaderboard_speed's generator, on this bench's own scratch database.
    os.environ["BENCH_DATABASE_URL"] = DATABASE_URL
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="iibench-open-data-")
    os.environ["OPEN_DATA_MIN_INTERVAL_SECONDS"] = "0"  # the upload's build starts at once
    os.environ["OPEN_DATA_PART_IDS"] = str(part_ids)
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
            "UPDATE submissions_submission SET publish = false WHERE contest_id = %s AND id %% 2 = 0",
            [contest.pk],
        )
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
    files: dict[str, list[int]] = {}
    for item in manifest["files"]:
        rows_bytes = files.setdefault(item["table"], [0, 0])
        rows_bytes[0] += item["rows"]
        rows_bytes[1] += item["bytes"]
    found = {
        "entries": entries,
        "outcome": outcome,
        "seconds": seconds,
        "rss_before_mib": before / 1024,
        "peak_mib": vm_kib("VmHWM") / 1024,
        "parts": len(manifest["parts"]),
        "files": files,
    }
    for turn in range(repeats):  # in turn, so a change of the machine's load falls on all
        for name, change in (
            ("edit", lambda turn=turn: one_edit(contest, turn)),
            ("anonymous_delete", lambda turn=turn: one_delete(contest, turn, named=False)),
            ("named_delete", lambda turn=turn: one_delete(contest, turn, named=True)),
            ("unranked_upload", lambda: one_upload(contest, ranked_first=False)),
            ("ranked_first_upload", lambda: one_upload(contest, ranked_first=True)),
        ):
            found.setdefault(name, []).append(change())
    connection.close()
    return found


def middle_entry(contest, turn: int, *, named: bool | None = None):
    """An entry in the middle of the registry (a full part), another at each turn."""
    from submissions.models import Submission

    entries = Submission.objects.filter(contest=contest)
    if named is not None:
        entries = entries.filter(publish=named)
    ids = entries.order_by("id").values_list("id", flat=True)
    return Submission.objects.get(pk=ids[len(ids) // 2 + 7 * turn])


def one_edit(contest, turn: int) -> dict:
    """An entrant edits the description of an entry in the middle of the registry, in a full
    part (a new upload lands in the newest part, which may hold only a few)."""
    entry = middle_entry(contest, turn)
    entry.solution_description += " Edited."
    entry.save()
    return timed_build()


def one_delete(contest, turn: int, *, named: bool) -> dict:
    """An entrant deletes an entry in the middle of the registry, anonymous or named."""
    middle_entry(contest, turn, named=named).delete()
    return timed_build()


def timed_build() -> dict:
    """The build the change made due, timed, with the parts it rebuilt, reranked and kept."""
    from django.utils import timezone

    from submissions.models import OpenDataset
    from submissions.opendata.state import open_dataset_refresh

    started = time.perf_counter()
    outcome = open_dataset_refresh(now=timezone.now())
    seconds = time.perf_counter() - started
    manifest = OpenDataset.objects.get().manifest
    return {
        "outcome": outcome,
        "seconds": seconds,
        "load": os.getloadavg()[0],
        "rebuilt": len(manifest["parts_rebuilt"]),
        "amended": len(manifest.get("parts_amended", [])),  # none before the deltas
        "ranks": len(manifest["ranks_rewritten"]),
        "kept": manifest["parts_kept"],
    }


def one_upload(contest, *, ranked_first: bool) -> dict:
    """One entry added as an upload adds it (the ORM's save, which moves the contest's board
    version on), a copy of the template with its series; then the build it makes due, timed."""
    from submissions.models import SampleSeries, Submission

    template = Submission.objects.filter(contest=contest, series__isnull=False).earliest("id")
    series = template.series
    entry = template
    entry.pk = entry.id = None
    entry._state.adding = True
    entry.log_sha256 = f"f{next(UPLOADS):063x}"  # another log than the copies' and the last
    entry.eligible = ranked_first
    if ranked_first:  # ahead of every entry, the earlier ranked uploads too
        entry.seconds_to_target = 1.0 / (1 + Submission.objects.filter(contest=contest).count())
    entry.save()
    SampleSeries.objects.create(
        submission=entry, count=series.count, columns=series.columns, preview=series.preview
    )
    return timed_build()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--samples", type=int, default=100, help="reports per entry's series")
    parser.add_argument("--part-ids", type=int, default=10_000, help="entry ids per part")
    parser.add_argument("--repeats", type=int, default=5, help="each change, in turn")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.samples, args.part_ids, args.repeats)))
        return
    print(f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for size in (int(text) for text in args.sizes.split(",")):
        done = subprocess.run(
            [sys.executable, __file__, "--one", str(size), "--samples", str(args.samples),
             "--part-ids", str(args.part_ids), "--repeats", str(args.repeats)],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        found = json.loads(done.stdout.strip().splitlines()[-1])
        files = ", ".join(
            f"{name} {rows:,} rows {size_bytes / 2**20:.1f} MiB"
            for name, (rows, size_bytes) in found["files"].items()
        )
        print(
            f"{size:>7,} entries x {args.samples} reports: full build ({found['parts']} parts) "
            f"in {found['seconds']:.1f} s, RSS {found['rss_before_mib']:.0f} MiB before, "
            f"peak {found['peak_mib']:.0f} MiB; {files}; load now {os.getloadavg()[0]:.2f}"
        )
        for name, words in (
            ("edit", "one entry edited mid-registry"),
            ("anonymous_delete", "one anonymous entry deleted mid-registry"),
            ("named_delete", "one named entry deleted mid-registry"),
            ("unranked_upload", "one upload moving no rank"),
            ("ranked_first_upload", "one upload ranked first"),
        ):
            runs = found[name]
            times = sorted(run["seconds"] for run in runs)
            median = statistics.median(times)
            shapes = sorted(
                {(run["rebuilt"], run["amended"], run["kept"], run["ranks"]) for run in runs}
            )
            loads = sorted(run["load"] for run in runs)
            print(
                f"{size:>7,} entries, {words} (x{len(runs)}): {runs[-1]['outcome']} in median "
                f"{median:.3f} s (range {times[0]:.3f}-{times[-1]:.3f}; "
                f"{median / found['seconds']:.1%} of the full build; load {loads[0]:.1f}-"
                f"{loads[-1]:.1f}): (parts rebuilt whole, amended, kept, contests' ranks "
                f"written) {', '.join(map(str, shapes))}"
            )
        print(f"Load average (1, 5, 15 min) now: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
