"""How fast the leaderboard and the entry page are, on a board of 10,000 entries.

Builds a scratch PostgreSQL database (BENCH_DATABASE_URL, default iibench_bench on
127.0.0.1), fills one contest with 10,000 entries, each with a 1,000-sample series, and times
in the same run, through Django's test client (the whole middleware stack, no network):

- a bare view that returns "ok" (the floor any page pays),
- the contest page with its leaderboard, as a visitor sees it, sorted and filtered,
- the leaderboard API,

each in `--pairs` fresh processes that time every request in interleaved rounds: per request
the median, its ratio to the bare view (median and range over the processes; the goal for the
API at page_size=1000: at most 3x) and the SQL queries it made. Then the entry page of a
2,000,000-sample run: the preview's build time and the page's payload and render time.

    python bench/leaderboard_speed.py [--entries 10000] [--repeat 200] [--pairs 5] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_bench"
)
os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
os.environ["TEST_DATABASE_URL"] = BENCH_DATABASE_URL
os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
os.environ.setdefault("STATIC_ROOT", tempfile.mkdtemp(prefix="iibench-bench-static-"))
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
import psycopg  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import DatabaseError, connection  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402
from django.urls import include, path  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench import ab  # noqa: E402
from submissions.contests import ranks as contest_ranks  # noqa: E402
from submissions.contests import reference_rows  # noqa: E402
from submissions.measures.series import pack_columns, plot_preview  # noqa: E402
from submissions.models import Contest, SampleSeries, Submission  # noqa: E402
from submissions.setup.engines import normalised_engine  # noqa: E402

SAMPLES_PER_ENTRY = 1_000
LONG_RUN_SAMPLES = 2_000_000
ENGINES = ("InnoDB", "TokuDB", "MyISAM", "RocksDB", "Aria")
DRIVES = ("hdd", "ssd", "nvme")


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


class BenchURLs:
    """The site's URLs plus the bare view, which exists only in this run."""

    urlpatterns = [path("bench/bare/", bare), path("", include("iibench_site.urls"))]


def recreate_database() -> None:
    parts = urlsplit(BENCH_DATABASE_URL)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    connection.close()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def run_columns(rng: np.random.Generator, samples: int, every: int, start_rate: float) -> dict:
    """A run whose rate falls as the table outgrows memory, printed with one decimal."""
    rows = np.arange(1, samples + 1, dtype=np.int64) * every
    decay = 1.0 + np.arange(samples) / rng.uniform(20, 400)
    interval_rate = np.round(start_rate / decay * rng.uniform(0.9, 1.1, samples), 1)
    seconds = np.round(np.cumsum(every / interval_rate), 3)
    return {
        "rows": rows,
        "seconds": seconds,
        "interval_rate": interval_rate,
        "cumulative_rate": np.round(rows / seconds, 1),
        "line": np.arange(2, samples + 2, dtype=np.int64),
    }


def fill_contest(entries: int) -> Contest:
    contest = Contest.objects.create(
        slug="bench",
        title="Bench contest",
        results_published_at=timezone.now() - timedelta(days=1),
    )
    reference_rows.reference_results_create(contest=contest)
    owner = get_user_model().objects.create(username="bench-entrant")
    rng = np.random.default_rng(2008)
    started = time.perf_counter()
    batch = 500
    for first in range(0, entries, batch):
        submissions = []
        series = []
        for number in range(first, min(first + batch, entries)):
            columns = run_columns(rng, SAMPLES_PER_ENTRY, 1_000_000, rng.uniform(5e3, 2e5))
            elapsed = float(columns["seconds"][-1])
            eligible = number % 10 != 0
            submissions.append(
                Submission(
                    contest=contest,
                    owner=owner,
                    entrant_name=f"Entrant {number}",
                    email=f"entrant{number}@example.org",
                    publish=number % 3 != 0,
                    cpu_model="Xeon X5460",
                    sockets=2,
                    cores=int(rng.choice([4, 8])),
                    cpu_ghz=3.16,
                    memory_gb=float(rng.choice([8, 16])),
                    drives=int(rng.integers(1, 9)),
                    drive_kind=DRIVES[number % len(DRIVES)],
                    raid_level="RAID 0" if number % 2 else "",
                    os="CentOS 5.1",
                    server_version="5.1.25",
                    storage_engine=ENGINES[number % len(ENGINES)],
                    engine=normalised_engine(ENGINES[number % len(ENGINES)]),
                    solution_description="Tuned buffer pool. " * 40,
                    log=f"logs/bench/{number:064d}.log",
                    log_name="iibench.log",
                    log_sha256=f"{number:064d}",
                    log_size=80_000,
                    log_format="python-iibench-2009-04",
                    rows=int(columns["rows"][-1]),
                    elapsed_seconds=elapsed,
                    average_rate=float(columns["cumulative_rate"][-1]),
                    terminal_rate=float(columns["interval_rate"][-10:].mean()),
                    terminal_window_rows=10_000_000,
                    terminal_window_start_row=990_000_000,
                    seconds_to_target=elapsed,
                    eligible=eligible,
                    ineligible_reason="" if eligible else "32 cores declared; at most 8.",
                    verified=number % 7 == 0,
                    verdicts=[{"rule": "target_rows", "status": "pass", "message": "ok"}] * 12,
                    checked_at=timezone.now(),
                )
            )
            series.append((columns, len(columns["rows"])))
        Submission.objects.bulk_create(submissions)
        SampleSeries.objects.bulk_create(
            SampleSeries(
                submission=submission,
                count=count,
                columns=pack_columns(columns),
                preview=plot_preview(columns),
            )
            for submission, (columns, count) in zip(submissions, series, strict=True)
        )
    print(f"  filled {entries:,} entries with {SAMPLES_PER_ENTRY:,}-sample series "
          f"in {time.perf_counter() - started:.1f} s")  # fmt: skip
    return contest


def rank(contest: Contest) -> None:
    started = time.perf_counter()
    changed = contest_ranks.contest_rank(contest=contest)
    first = time.perf_counter() - started
    # A newcomer at the top moves every other rank down by one: the worst case of a save.
    last = Submission.objects.filter(contest=contest, rank__isnull=False).order_by("rank").last()
    Submission.objects.filter(pk=last.pk).update(seconds_to_target=1.0)
    started = time.perf_counter()
    moved = contest_ranks.contest_rank(contest=contest)
    again = time.perf_counter() - started
    started = time.perf_counter()
    unchanged = contest_ranks.contest_rank(contest=contest)
    idle = time.perf_counter() - started
    print(f"  contest_rank: first ranking {first * 1000:.0f} ms ({changed:,} ranks written); "
          f"a newcomer at the top {again * 1000:.0f} ms ({moved:,} ranks moved); "
          f"nothing changed {idle * 1000:.0f} ms ({unchanged} written)")  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE submissions_submission")


def one_request(client: Client, url: str) -> tuple[int, int]:
    """The queries and the bytes of one GET (read at once: the next request resets the log)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries.captured_queries), len(response.content)


def medians_ms(client: Client, urls: list[str], repeat: int) -> list[float]:
    """Median milliseconds of each URL, timed in interleaved rounds so that a busy machine
    slows every case alike."""
    for _ in range(max(5, repeat // 10)):
        for url in urls:
            client.get(url)
    times: list[list[float]] = [[] for _ in urls]
    for _ in range(repeat):
        for index, url in enumerate(urls):
            started = time.perf_counter()
            client.get(url)
            times[index].append(time.perf_counter() - started)
    return [statistics.median(case) * 1000 for case in times]


PAGE_CASES = (
    ("bare view (HttpResponse 'ok')", "/bench/bare/"),
    ("contest page, board embargoed (rules and layout only)", "/contests/bench-embargoed/"),
    ("leaderboard page, default (page 1 of 50 rows)", "/contests/{slug}/"),
    ("leaderboard page, ?sort=-terminal_rate&page=100", "/contests/{slug}/?sort=-terminal_rate&page=100"),
    ("leaderboard page, ?engine=tokudb&drive=ssd", "/contests/{slug}/?engine=tokudb&drive=ssd"),
    ("leaderboard page, ?sort=entrant&verified=1", "/contests/{slug}/?sort=entrant&verified=1"),
    ("API leaderboard, default (50 rows)", "/api/contests/{slug}/leaderboard/"),
    ("API leaderboard, ?page_size=1000&sort=-average_rate", "/api/contests/{slug}/leaderboard/?page_size=1000&sort=-average_rate"),
)  # fmt: skip
API_1000 = len(PAGE_CASES) - 1
RATIO_GOAL = 3.0


def child_medians(urls: list[str], repeat: int) -> None:
    """`--child`: in a fresh interpreter, every URL timed in interleaved rounds; prints the
    medians in ms as JSON."""
    with override_settings(ROOT_URLCONF=BenchURLs, DEBUG=False):
        print(json.dumps({"medians": medians_ms(Client(), urls, repeat)}))


def time_pages(contest: Contest, repeat: int, pairs: int) -> bool:
    """Each case against the bare view: `pairs` fresh processes, each timing every URL in
    interleaved rounds, give one ratio each; their median and range are printed."""
    client = Client()
    Contest.objects.get_or_create(
        slug="bench-embargoed", defaults={"title": "Embargoed", "results_published_at": None}
    )
    urls = [url.format(slug=contest.slug) for _, url in PAGE_CASES]
    shapes = [one_request(client, url) for url in urls]
    connection.close()
    runs = [
        ab.run_child(
            f"import sys; sys.argv = ['leaderboard_speed', '--child', '--repeat', '{repeat}', "
            f"*{urls!r}]; sys.path.insert(0, {str(ROOT)!r}); "
            "from bench import leaderboard_speed; leaderboard_speed.main()"
        )["medians"]
        for _ in range(pairs)
    ]
    print(f"\n  {pairs} fresh processes, each timing every request {repeat} times in interleaved "
          "rounds; medians, the ratio's range over the processes in brackets")  # fmt: skip
    print(f"  {'request':<56} {'median':>9} {'x bare (range)':>20} {'queries':>8} {'bytes':>9}")
    ratios = []
    for index, ((label, _), (queries, size)) in enumerate(zip(PAGE_CASES, shapes, strict=True)):
        times = [run[index] for run in runs]
        ratio = [run[index] / run[0] for run in runs]
        ratios.append(ratio)
        spread = f"{statistics.median(ratio):.1f}x ({min(ratio):.1f}-{max(ratio):.1f})"
        print(f"  {label:<56} {statistics.median(times):>6.2f} ms {spread:>20} {queries:>8} "
              f"{size:>9,}")  # fmt: skip
    page, api = statistics.median(ratios[2]), statistics.median(ratios[API_1000])
    print(f"\n  leaderboard page / bare view = {page:.1f}x")
    met = api <= RATIO_GOAL
    print(
        f"  goal, API leaderboard at page_size=1000 at most {RATIO_GOAL:.0f}x a bare view: "
        f"{api:.1f}x ({min(ratios[API_1000]):.1f}-{max(ratios[API_1000]):.1f}): "
        f"{'met' if met else 'MISSED'}"
    )
    started = time.perf_counter()
    response = client.get(f"/contests/{contest.slug}/leaderboard.csv")
    size = sum(len(chunk) for chunk in response.streaming_content)
    print(f"  whole board as CSV (streamed): {size:,} bytes in "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")  # fmt: skip
    return met


def time_long_entry(contest: Contest, repeat: int) -> None:
    rng = np.random.default_rng(1)
    columns = run_columns(rng, LONG_RUN_SAMPLES, 500, 100_000.0)
    started = time.perf_counter()
    preview = plot_preview(columns)
    preview_seconds = time.perf_counter() - started
    started = time.perf_counter()
    packed = pack_columns(columns)
    pack_seconds = time.perf_counter() - started
    entry = Submission.objects.filter(contest=contest).order_by("pk").first()
    SampleSeries.objects.filter(submission=entry).update(
        count=LONG_RUN_SAMPLES, columns=packed, preview=preview
    )
    points = {name: len(curve["x"]) for name, curve in preview.items() if name != "count"}
    client = Client()
    url = entry.get_absolute_url()
    queries, size = one_request(client, url)
    (median,) = medians_ms(client, [url], repeat)
    print(f"\n  entry page of a {LONG_RUN_SAMPLES:,}-sample run:")
    print(f"    plotted points per series: {points}")
    print(f"    preview built in {preview_seconds * 1000:.0f} ms "
          f"(stored once, at submission; packing the full series: {pack_seconds:.1f} s, "
          f"{len(packed) / 1e6:.1f} MB)")  # fmt: skip
    print(f"    page payload {size:,} bytes, rendered in {median:.1f} ms (median), "
          f"{queries} queries")  # fmt: skip


def reusable_contest(entries: int) -> Contest | None:
    try:
        contest = Contest.objects.filter(slug="bench").first()
    except DatabaseError:  # no bench database yet
        connection.close()
        return None
    return contest if contest and contest.submissions.count() == entries else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep a filled bench database")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("urls", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_medians(args.urls, args.repeat)
        return 0
    print(f"leaderboard_speed: {args.entries:,} entries, database {BENCH_DATABASE_URL}")
    with override_settings(ROOT_URLCONF=BenchURLs, DEBUG=False):
        contest = reusable_contest(args.entries) if args.reuse else None
        if contest is not None:
            call_command("migrate", verbosity=0)  # a kept database from an older schema
        if contest is None:
            recreate_database()
            call_command("migrate", verbosity=0)
            contest = fill_contest(args.entries)
            rank(contest)
        met = time_pages(contest, args.repeat, args.pairs)
        time_long_entry(contest, max(10, args.repeat // 10))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
