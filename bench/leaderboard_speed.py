"""How fast the leaderboard and the entry page are, on boards of 10,000 and 100,000 entries.

For each size, builds a scratch PostgreSQL database (BENCH_DATABASE_URL, default iibench_bench
on 127.0.0.1) and fills one contest with a fast generator (one entry made by the ORM, with a
1,000-sample series, copied by one INSERT ... SELECT over generate_series with varied
figures: 100,000 entries in seconds, not 100,000 uploads). Then, through Django's test client
(the whole middleware stack, no network), every page is built cold (the board version is
moved on before each request, as a new entry does, so no kept body is ever served):

- a bare view that returns "ok" (the floor any page pays),
- bare indexed queries of the same rows in the same order (a plain ORM slice on an index of
  that order, as JSON): the floor a board page of those rows pays,
- the contest page with its leaderboard, as a visitor sees it, sorted and filtered,
- the leaderboard API,

each in `--pairs` fresh processes that time every request in interleaved rounds: per request
the median, its ratio to the bare view and to the bare query of its rows (median and range
over the processes; the goal: a board page built cold within 3x the bare query of its rows)
and the SQL queries it made. Then what a newcomer at the top writes (its own row: ranks are
derived), and the entry page of a 2,000,000-sample run.

    python bench/leaderboard_speed.py [--sizes 10000,100000] [--repeat 30] [--pairs 5] [--reuse]
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
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import DatabaseError, connection  # noqa: E402
from django.db.models import F  # noqa: E402
from django.http import HttpRequest, HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, override_settings  # noqa: E402
from django.urls import include, path  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench import ab  # noqa: E402
from submissions.board import cache as board_cache  # noqa: E402
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


# The bare queries' orders, each backed by an index the migrations make (0028: no index exists
# only in the bench): the ranked entries in rank order (the classic ranking: measured before
# estimated, time to the target, terminal rate highest first; board_rank_order_idx), and every
# entry by average rate, highest first (board_average_desc_idx).
BARE_ORDERS = {
    "rank": (
        "estimated",
        "seconds_to_target",
        F("terminal_rate").desc(nulls_last=True),
        "id",
    ),
    "average_rate": (F("average_rate").desc(nulls_last=True), "id"),
}
BARE_FIELDS = (
    "id", "entrant_name", "storage_engine", "cores", "memory_gb", "drive_kind",
    "seconds_to_target", "estimated", "terminal_rate", "average_rate", "verification",
    "elapsed_seconds",
)  # fmt: skip


def bare_rows(request: HttpRequest, slug: str, order: str, size: int) -> HttpResponse:
    """The same rows a board page shows, in the same order, as a plain indexed slice."""
    contest_id = Contest.objects.filter(slug=slug).values_list("pk", flat=True).get()
    entries = Submission.objects.filter(contest_id=contest_id)
    if order == "rank":
        entries = entries.filter(eligible=True, seconds_to_target__isnull=False)
    rows = list(entries.order_by(*BARE_ORDERS[order]).values(*BARE_FIELDS)[:size])
    return HttpResponse(json.dumps(rows), content_type="application/json")


class BenchURLs:
    """The site's URLs plus the bare views, which exist only in this run."""

    urlpatterns = [
        path("bench/bare/", bare),
        path("bench/rows/<slug:slug>/<str:order>/<int:size>/", bare_rows),
        path("", include("iibench_site.urls")),
    ]


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


def template_entry(contest: Contest, owner, rng: np.random.Generator) -> Submission:
    """One entry made by the ORM, with its series: the generator copies it."""
    columns = run_columns(rng, SAMPLES_PER_ENTRY, 1_000_000, 1e5)
    elapsed = float(columns["seconds"][-1])
    entry = Submission.objects.create(
        contest=contest,
        owner=owner,
        entrant_name="Entrant 0",
        email="entrant0@example.org",
        publish=True,
        cpu_model="Xeon X5460",
        sockets=2,
        cores=8,
        cpu_ghz=3.16,
        memory_gb=16.0,
        drives=4,
        drive_kind="hdd",
        raid_level="",
        os="CentOS 5.1",
        server_version="5.1.25",
        storage_engine=ENGINES[0],
        engine=normalised_engine(ENGINES[0]),
        solution_description="Tuned buffer pool. " * 40,
        log=f"logs/bench/{0:064d}.log",
        log_name="iibench.log",
        log_sha256=f"{0:064d}",
        log_size=80_000,
        log_format="python-iibench-2009-04",
        rows=int(columns["rows"][-1]),
        elapsed_seconds=elapsed,
        average_rate=float(columns["cumulative_rate"][-1]),
        terminal_rate=float(columns["interval_rate"][-10:].mean()),
        terminal_window_rows=10_000_000,
        terminal_window_start_row=990_000_000,
        seconds_to_target=elapsed,
        eligible=True,
        verdicts=[{"rule": "target_rows", "status": "pass", "message": "ok"}] * 12,
        checked_at=timezone.now(),
    )
    SampleSeries.objects.create(
        submission=entry,
        count=len(columns["rows"]),
        columns=pack_columns(columns),
        preview=plot_preview(columns),
    )
    return entry


def _pick(values: tuple[str, ...], modulus_of: str) -> str:
    quoted = ", ".join(f"'{value}'" for value in values)
    return f"(ARRAY[{quoted}])[1 + ({modulus_of}) % {len(values)}]"


# The copies' own values, as SQL over the copy's number g (pseudo-random but repeatable: a
# multiplier modulo a prime spreads the times and rates; some tie, 1 in 13 is an estimate).
COPY_VALUES = {
    "entrant_name": "'Entrant ' || g",
    "email": "'entrant' || g || '@example.org'",
    "publish": "g % 3 <> 0",
    "cores": "CASE WHEN g % 2 = 0 THEN 4 ELSE 8 END",
    "memory_gb": "CASE WHEN g % 4 < 2 THEN 8 ELSE 16 END",
    "drives": "1 + g % 8",
    "drive_kind": _pick(DRIVES, "g"),
    "raid_level": "CASE WHEN g % 2 = 1 THEN 'RAID 0' ELSE '' END",
    "storage_engine": _pick(ENGINES, "g"),
    "engine": _pick(tuple(normalised_engine(name) for name in ENGINES), "g"),
    "log": "'logs/bench/' || lpad(g::text, 64, '0') || '.log'",
    "log_sha256": "lpad(g::text, 64, '0')",
    "seconds_to_target": "86400.0 * (1 + ((g::bigint * 7919) % 50021) / 2500.0)",
    "elapsed_seconds": "86400.0 * (1 + ((g::bigint * 7919) % 50021) / 2500.0)",
    "terminal_rate": "5000.0 + ((g::bigint * 104729) % 1951) * 100",
    "average_rate": "10000.0 + ((g::bigint * 130363) % 190001)",
    "estimated": "g % 13 = 0",
    "eligible": "g % 10 <> 0",
    "ineligible_reason": "CASE WHEN g % 10 = 0 THEN '32 cores declared; at most 8.' ELSE '' END",
    "verification": "CASE WHEN g % 7 = 0 THEN 'reproduced' ELSE '' END",
}


def fill_contest(entries: int) -> Contest:
    """`entries` entries in one contest: one made by the ORM, the rest copies of it made by
    one INSERT ... SELECT (the board reads columns, never the copies' series)."""
    contest = Contest.objects.create(
        slug="bench",
        title="Bench contest",
        results_published_at=timezone.now() - timedelta(days=1),
    )
    reference_rows.reference_results_create(contest=contest)
    owner = get_user_model().objects.create(username="bench-entrant")
    started = time.perf_counter()
    template = template_entry(contest, owner, np.random.default_rng(2008))
    # A generated column (verified_now) is the database's to write.
    columns = [
        field.column
        for field in Submission._meta.concrete_fields
        if not field.primary_key and not field.generated
    ]
    unknown = set(COPY_VALUES) - set(columns)
    assert not unknown, unknown
    # %% : the statement has parameters, so a literal % (modulo) is written twice.
    values = [
        COPY_VALUES[column].replace("%", "%%") if column in COPY_VALUES else f'template."{column}"'
        for column in columns
    ]
    names = ", ".join(f'"{column}"' for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            # Column names from the model, values from COPY_VALUES: nothing from outside.
            f"INSERT INTO submissions_submission ({names}) "  # noqa: S608  # nosec B608
            f"SELECT {', '.join(values)} FROM submissions_submission AS template, "
            "generate_series(1, %s) AS g WHERE template.id = %s",
            [entries - 1, template.pk],
        )
        cursor.execute("VACUUM ANALYZE submissions_submission")
    print(f"  filled {entries:,} entries (one with a {SAMPLES_PER_ENTRY:,}-sample series, "
          f"the rest copied by one INSERT) in {time.perf_counter() - started:.1f} s")  # fmt: skip
    return contest


def newcomer_at_the_top(contest: Contest) -> None:
    """What a new best entry costs: its own INSERT and the board version, nothing more (the
    ranks are derived). Counts the rows of other entries it wrote."""
    template = Submission.objects.filter(contest=contest).order_by("pk").first()
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        newcomer = Submission.objects.get(pk=template.pk)
        newcomer.pk = None
        newcomer.log_sha256 = "f" * 64
        newcomer.seconds_to_target = 1.0
        newcomer.estimated = False
        newcomer.save()  # its save moves the board version on; no stored rank is written
        seconds = time.perf_counter() - started
    entry_updates = sum(
        query["sql"].startswith("UPDATE") and '"submissions_submission"' in query["sql"][:40]
        for query in queries.captured_queries
    )
    print(f"  a newcomer at the top: {seconds * 1000:.0f} ms, {len(queries.captured_queries)} "
          f"queries, {entry_updates} UPDATEs of entries, no ranks written; its rank "
          f"now {newcomer.rank}")  # fmt: skip
    newcomer.delete()


def one_request(client: Client, url: str) -> tuple[int, int]:
    """The queries and the bytes of one GET (read at once: the next request resets the log)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries.captured_queries), len(response.content)


# A case whose URL starts so is timed after a real change of a ranking value before each
# request (an entry's terminal rate edited, as a re-check or a new result edits one), not only
# the board version moved: what the kept ranking keys must catch up with.
CHANGED = "changed:"


def case_url(url: str) -> tuple[str, bool]:
    return (url[len(CHANGED) :], True) if url.startswith(CHANGED) else (url, False)


def change_a_ranking(contest_id: int, turn: int) -> None:
    """One ranked entry's terminal rate moved (the turn picks which), outside the timing."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE submissions_submission SET terminal_rate = terminal_rate * %s "
            "WHERE id = (SELECT id FROM submissions_submission WHERE contest_id = %s "
            "AND eligible ORDER BY id OFFSET %s LIMIT 1)",
            [1.01 if turn % 2 else 1 / 1.01, contest_id, (turn * 7_919) % 5_000],
        )


def medians_ms(client: Client, urls: list[str], repeat: int, contest_id: int | None) -> list:
    """Median milliseconds of each URL, timed in interleaved rounds so that a busy machine
    slows every case alike. With `contest_id`, the board version moves on before each
    request (outside the timing), as a new entry moves it: every board is built cold; a
    CHANGED case after a ranking value changed too."""
    turns = iter(range(1_000_000))

    def cold(changed: bool) -> None:
        if contest_id is not None and changed:
            change_a_ranking(contest_id, next(turns))
        if contest_id is not None:
            contest_ranks.contest_board_changed(contest_id=contest_id)

    cases = [case_url(url) for url in urls]
    for _ in range(max(3, repeat // 10)):
        for url, changed in cases:
            cold(changed)
            client.get(url)
    times: list[list[float]] = [[] for _ in urls]
    for _ in range(repeat):
        for index, (url, changed) in enumerate(cases):
            cold(changed)
            started = time.perf_counter()
            client.get(url)
            times[index].append(time.perf_counter() - started)
    return [statistics.median(case) * 1000 for case in times]


# (label, URL, the case it is compared with: the bare query of the same rows in the same order)
PAGE_CASES = (
    ("bare view (HttpResponse 'ok')", "/bench/bare/", None),
    ("bare indexed query, 50 ranked rows in rank order", "/bench/rows/{slug}/rank/50/", None),
    ("bare indexed query, 1,000 rows by average rate", "/bench/rows/{slug}/average_rate/1000/", None),
    ("contest page, board embargoed (rules and layout only)", "/contests/bench-embargoed/", None),
    ("leaderboard page, default (page 1 of 50 rows)", "/contests/{slug}/", 1),
    ("leaderboard page, ?sort=-terminal_rate&page=100", "/contests/{slug}/?sort=-terminal_rate&page=100", None),
    ("leaderboard page, ?engine=tokudb&drive=ssd", "/contests/{slug}/?engine=tokudb&drive=ssd", None),
    ("leaderboard page, ?sort=entrant&verified=1", "/contests/{slug}/?sort=entrant&verified=1", None),
    ("API leaderboard, default (50 rows)", "/api/contests/{slug}/leaderboard/", 1),
    ("API leaderboard, ?page_size=1000&sort=-average_rate", "/api/contests/{slug}/leaderboard/?page_size=1000&sort=-average_rate", 2),
    ("the same after a ranking value changed", CHANGED + "/api/contests/{slug}/leaderboard/?page_size=1000&sort=-average_rate", 2),
    ("leaderboard page ?sort=-terminal_rate, after one changed", CHANGED + "/contests/{slug}/?sort=-terminal_rate", None),
)  # fmt: skip
RATIO_GOAL = 3.0


def child_medians(urls: list[str], repeat: int, contest_id: int | None) -> None:
    """`--child`: in a fresh interpreter, every URL timed in interleaved rounds; prints the
    medians in ms as JSON."""
    with override_settings(ROOT_URLCONF=BenchURLs, DEBUG=False):
        print(json.dumps({"medians": medians_ms(Client(), urls, repeat, contest_id)}))


def time_pages(contest: Contest, repeat: int, pairs: int) -> bool:
    """Each case against the bare view and its bare query: `pairs` fresh processes, each
    timing every URL in interleaved rounds, every board built cold, give one ratio each;
    their median and range are printed."""
    client = Client()
    Contest.objects.get_or_create(
        slug="bench-embargoed", defaults={"title": "Embargoed", "results_published_at": None}
    )
    urls = [url.format(slug=contest.slug) for _, url, _ in PAGE_CASES]
    shapes = []
    for url in urls:
        contest_ranks.contest_board_changed(contest_id=contest.pk)  # built, not kept
        shapes.append(one_request(client, case_url(url)[0]))
    connection.close()
    runs = [
        ab.run_child(
            f"import sys; sys.argv = ['leaderboard_speed', '--child', '--repeat', '{repeat}', "
            f"'--contest-id', '{contest.pk}', *{urls!r}]; sys.path.insert(0, {str(ROOT)!r}); "
            "from bench import leaderboard_speed; leaderboard_speed.main()"
        )["medians"]
        for _ in range(pairs)
    ]
    print(f"\n  {pairs} fresh processes, each timing every request {repeat} times in interleaved "
          "rounds, every board built cold; medians, the ratio's range over the processes in "
          "brackets")  # fmt: skip
    print(f"  {'request':<54} {'median':>10} {'x bare view':>18} {'x bare query of its rows':>25} "
          f"{'queries':>7} {'bytes':>9}")  # fmt: skip
    met = True
    for index, ((label, _, floor), (queries, size)) in enumerate(
        zip(PAGE_CASES, shapes, strict=True)
    ):
        times = [run[index] for run in runs]
        ratio = [run[index] / run[0] for run in runs]
        spread = f"{statistics.median(ratio):.1f}x ({min(ratio):.1f}-{max(ratio):.1f})"
        against = ""
        if floor is not None:
            to_rows = [run[index] / run[floor] for run in runs]
            against = f"{statistics.median(to_rows):.1f}x ({min(to_rows):.1f}-{max(to_rows):.1f})"
            met = met and statistics.median(to_rows) <= RATIO_GOAL
        print(f"  {label:<54} {statistics.median(times):>7.2f} ms {spread:>18} {against:>25} "
              f"{queries:>7} {size:>9,}")  # fmt: skip
    print(f"  goal, a board page built cold at most {RATIO_GOAL:.0f}x the bare query of its rows: "
          f"{'met' if met else 'MISSED'}")  # fmt: skip
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
    (median,) = medians_ms(client, [url], repeat, None)
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
    parser.add_argument("--sizes", default="10000,100000", help="entries per board, in turn")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep a filled bench database")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--contest-id", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("urls", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_medians(args.urls, args.repeat, args.contest_id)
        return 0
    sizes = [int(size) for size in args.sizes.split(",")]
    met = True
    for number, entries in enumerate(sizes):
        print(f"\nleaderboard_speed: {entries:,} entries, database {BENCH_DATABASE_URL}")
        # A recreated board reuses the ids and versions a body was kept under, here and in
        # this process's own keep.
        cache.clear()
        board_cache._kept.clear()
        with override_settings(ROOT_URLCONF=BenchURLs, DEBUG=False):
            contest = reusable_contest(entries) if args.reuse else None
            if contest is not None:
                call_command("migrate", verbosity=0)  # a kept database from an older schema
            if contest is None:
                recreate_database()
                call_command("migrate", verbosity=0)
                contest = fill_contest(entries)
            newcomer_at_the_top(contest)
            met = time_pages(contest, args.repeat, args.pairs) and met
            if number == 0:
                time_long_entry(contest, max(10, args.repeat // 3))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
