"""Every public GET URL of the site at 10,000 and 100,000 entries (1,000,000 with --sizes), each
beside the bare query of its own page size (issue 44: a page costs its page, not the registry).

For each size: a scratch PostgreSQL database (BENCH_DATABASE_URL, default iibench_url_walk)
made again and migrated, filled by leaderboard_speed.py's generator (one entry made by the ORM,
the rest one INSERT ... SELECT over generate_series: no ORM per row; every entry on one CPU
model, the worst case for its page). Then, through Django's test client in `--pairs` fresh
processes, every URL of `CASES` and its floor are timed in interleaved rounds (`--repeat`),
every board built cold (its version moved on before each request, as a new entry moves it):
per URL its median, its ratio to its floor (median and range over the processes), its queries
and its bytes. A floor is the bare view (a fixed page), the bare indexed query of the page's
rows (50, or 1,000 for the API's largest page: walk_urls.py), or the bare read of one entry.

Then wrk (`--wrk-seconds`, 0: none) against gunicorn with the production settings (3 workers,
`bench/walk_wsgi.py`: the same application with the floors' URLs) on the home, board, entry
and API list pages and the bare view, one after another: requests per second and each page's
cost in bare views (the bare view's rate over the page's).

The goals printed: every page of rows within 3x its floor (a fixed page, floored by the bare
view, within 1.5x its own ratio at the smallest size); no page over 1 MB; the search under
50 ms; the entry page under wrk within 5x the bare view. The whole-board downloads (CSV, JSON) are
printed, not judged: they are the registry by what they are.

    .venv/bin/python bench/url_walk.py [--sizes 10000,100000] [--repeat 15] [--pairs 3]
        [--wrk-seconds 10] [--reuse] [--only LABEL[,LABEL]]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_url_walk")
BENCH_DATABASE_URL = os.environ["BENCH_DATABASE_URL"]
WALK_REDIS_URL = os.environ.get("WALK_REDIS_URL", "redis://127.0.0.1:6379/13")

# Sets Django up on the bench database (test settings), and fills it.
from django.core.cache import cache  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from bench import ab  # noqa: E402
from bench import leaderboard_speed as board_bench  # noqa: E402
from submissions.board import cache as board_cache  # noqa: E402
from submissions.board.engine_bests import engine_bests_rebuild  # noqa: E402
from submissions.models import Contest, Submission  # noqa: E402

URLCONF = "bench.walk_urls"
FLOORS = {
    "view": "/bench/bare/",
    "rows": "/bench/rows/{cid}/50/",
    "rows1000": "/bench/rows/{cid}/1000/",
    "entry": "/bench/entry/{pk}/",
}
# (label, URL, its floor): every public GET URL pattern of the site and the API, with a
# parameter or two where a page reads by it (a sort, a page deep in, a search).
CASES = (
    ("home", "/", "view"),
    ("contest page, board default", "/contests/{slug}/", "rows"),
    ("board ?sort=-terminal_rate", "/contests/{slug}/?sort=-terminal_rate", "rows"),
    ("board ?sort=entrant&page=20", "/contests/{slug}/?sort=entrant&page=20", "rows"),
    ("board ?sort=engine", "/contests/{slug}/?sort=engine", "rows"),
    ("board ?sort=-hardware", "/contests/{slug}/?sort=-hardware", "rows"),
    ("board ?sort=-average_rate", "/contests/{slug}/?sort=-average_rate", "rows"),
    ("board ?engine=tokudb&drive=ssd", "/contests/{slug}/?engine=tokudb&drive=ssd", "rows"),
    ("contest badge", "/contests/{slug}/badge.svg", "view"),
    ("host board", "/contests/{slug}/host-board/", "rows"),
    ("compare 3 entries", "/compare/?ids={pk},{pk2},{pk3}", "entry"),
    ("seeds", "/seeds/", "view"),
    ("search, a rare name", "/search/?q=Entrant+4242", "rows"),
    ("search, a word in every entry", "/search/?q=buffer", "rows"),
    ("search, an engine (a fifth)", "/search/?q=tokudb", "rows"),
    ("engine page", "/engines/TokuDB/", "rows"),
    ("CPU page (every entry's CPU)", "/cpus/Xeon X5460/", "rows"),
    ("CPU page, page 5", "/cpus/Xeon X5460/?page=5", "rows"),
    ("open data page", "/open-data/", "view"),
    ("results feed", "/feeds/results.atom", "rows"),
    ("live runs feed", "/feeds/live.atom", "view"),
    ("witness page", "/witness/", "view"),
    ("verification hosts", "/verification-hosts/", "view"),
    ("entry page", "/entries/{pk}/", "entry"),
    # The middle entry is not eligible (its page reads no rank, leader or placement): its
    # neighbour is, and reads them.
    ("entry page, an eligible entry", "/entries/{pk2}/", "entry"),
    ("entry history", "/entries/{pk}/history/", "entry"),
    ("entry badge", "/entries/{pk}/badge.svg", "entry"),
    ("entry figures.json", "/entries/{pk}/figures.json", "entry"),
    ("entry's rules", "/entries/{pk}/rules/v1/", "entry"),
    ("API root", "/api/", "view"),
    ("API dataset", "/api/dataset/", "view"),
    ("API contests", "/api/contests/", "view"),
    ("API leaderboard", "/api/contests/{slug}/leaderboard/", "rows"),
    (
        "API leaderboard ?page_size=1000&sort=-average_rate",
        "/api/contests/{slug}/leaderboard/?page_size=1000&sort=-average_rate",
        "rows1000",
    ),
    ("API submissions", "/api/submissions/", "rows"),
    ("API submissions ?page=20", "/api/submissions/?page=20", "rows"),
    ("API submission", "/api/submissions/{pk}/", "entry"),
    ("API samples (of a 1,000-sample run)", "/api/submissions/{first}/samples/", "entry"),
    ("API host board", "/api/contests/{slug}/host-board/", "rows"),
    ("API verification hosts", "/api/verification-hosts/", "view"),
)
# Whole-board downloads: printed, not judged (they are the board by what they are).
DOWNLOADS = (
    ("board as CSV", "/contests/{slug}/leaderboard.csv"),
    ("board as JSON", "/contests/{slug}/leaderboard.json"),
)
RATIO_GOAL = 3.0
BYTES_GOAL = 1_000_000
SEARCH_GOAL_MS = 50.0
WRK_GOAL = 5.0
# A fixed page's ratio to the bare view may move this much between sizes (noise), no more.
GROWTH_GOAL = 1.5


def url_values(contest: Contest) -> dict:
    """What the URLs' templates name: the contest, an entry in the middle of the board and two
    beside it, the first (which has a series)."""
    ids = Submission.objects.filter(contest=contest).order_by("pk").values_list("pk", flat=True)
    first = ids[0]
    middle = ids[len(ids) // 2] if len(ids) > 2 else first
    return {
        "slug": contest.slug,
        "cid": contest.pk,
        "first": first,
        "pk": middle,
        "pk2": middle + 1,
        "pk3": middle + 2,
    }


def shape(client: Client, url: str) -> tuple[int, int, int]:
    """(status, queries, bytes) of one GET, streamed bodies read whole."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        if response.streaming:
            size = sum(len(chunk) for chunk in response.streaming_content)
        else:
            size = len(response.content)
    return response.status_code, len(queries.captured_queries), size


def child(urls: list[str], repeat: int, contest_id: int) -> None:
    """`--child`: in a fresh interpreter, every URL timed in interleaved rounds (each board
    built cold); the medians in ms as JSON."""
    with override_settings(ROOT_URLCONF=URLCONF, DEBUG=False):
        medians = board_bench.medians_ms(Client(), urls, repeat, contest_id)
    print(json.dumps({"medians": medians}))


def walk(
    contest: Contest, repeat: int, pairs: int, ratios_seen: dict, only: set[str] | None = None
) -> list[str]:
    """Every case beside its floor in `pairs` fresh processes; the goals missed. A page of
    fixed size (floored by the bare view: no rows to read) is judged on its growth across
    the sizes instead (`ratios_seen`: each page's median ratio, filled here). `only`: the
    labels of the cases walked (None: every case; the floors always, the downloads never)."""
    values = url_values(contest)
    floors = {name: url.format(**values) for name, url in FLOORS.items()}
    client = Client()
    cases, missed = [], []
    with override_settings(ROOT_URLCONF=URLCONF, DEBUG=False):
        for label, template, floor in CASES:
            if only is not None and label not in only:
                continue
            url = template.format(**values)
            status, queries, size = shape(client, url)
            if status != 200:
                print(f"  {label}: {url} answered {status}; left out")
                continue
            cases.append((label, url, floor, queries, size))
        downloads = [(label, url.format(**values)) for label, url in DOWNLOADS if only is None]
        download_shapes = [shape(client, url) for _, url in downloads]
    connection.close()
    urls = [*floors.values(), *(url for _, url, *_ in cases)]
    code = (
        f"import sys; sys.argv = ['url_walk', '--child', '--repeat', '{repeat}', "
        f"'--contest-id', '{contest.pk}', *{urls!r}]; sys.path.insert(0, {str(ROOT)!r}); "
        "from bench import url_walk; url_walk.main()"
    )
    runs = [ab.run_child(code)["medians"] for _ in range(pairs)]
    at = {url: index for index, url in enumerate(urls)}
    print(f"\n  {pairs} fresh processes, each URL {repeat} times in interleaved rounds, every "
          "board built cold; medians, the ratio's range over the processes in brackets")  # fmt: skip
    print(f"  {'page':<52} {'median':>10} {'x its floor':>17} {'floor':>8} {'queries':>7} "
          f"{'bytes':>10}")  # fmt: skip
    for floor, url in floors.items():
        times = [run[at[url]] for run in runs]
        print(f"  {'floor: ' + floor:<52} {statistics.median(times):>7.2f} ms")
    for label, url, floor, queries, size in cases:
        times = [run[at[url]] for run in runs]
        ratios = [run[at[url]] / run[at[floors[floor]]] for run in runs]
        ratio = statistics.median(ratios)
        median = statistics.median(times)
        print(f"  {label:<52} {median:>7.2f} ms {ratio:>6.1f}x ({min(ratios):.1f}-"
              f"{max(ratios):.1f}) {floor:>8} {queries:>7} {size:>10,}")  # fmt: skip
        ratios_seen[label] = ratio
        if floor != "view" and ratio > RATIO_GOAL:
            missed.append(f"{label}: {ratio:.1f}x its floor")
        if size > BYTES_GOAL:
            missed.append(f"{label}: {size:,} bytes")
        if label.startswith("search") and median > SEARCH_GOAL_MS:
            missed.append(f"{label}: {median:.0f} ms")
    for (label, _url), (status, queries, size) in zip(downloads, download_shapes, strict=True):
        print(f"  {label + ' (whole board, not judged)':<52} status {status}, {queries} queries, "
              f"{size:,} bytes")  # fmt: skip
    return missed


def wrk(url: str, seconds: int) -> dict:
    """wrk's figures for `url`: 8 connections (the issue's concurrency), a request slower than
    30 s a timeout (a slow page is measured, not called an error). load_speed.py reads wrk's
    report alike; that module is not imported: it points the bench's database elsewhere."""
    done = subprocess.run(
        ["wrk", "-t2", "-c8", f"-d{seconds}s", "--timeout", "30s", "--latency", url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    report = done.stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", report, re.MULTILINE))
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", report
    )
    return {
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", report)[1]),
        "p50": latency.get("50", "?"),
        "p99": latency.get("99", "?"),
        "non_2xx": int((re.search(r"Non-2xx or 3xx responses: (\d+)", report) or [0, 0])[1]),
        "socket_errors": sum(map(int, errors.groups())) if errors else 0,
        "report": report,
    }


def wrk_pages(contest: Contest, seconds: int) -> list[str]:
    """wrk on a few pages and the bare view of the same gunicorn, one after another."""
    import redis

    from testing.server import collect_static, production_environment, start_gunicorn

    values = url_values(contest)
    pages = (
        ("bare view", FLOORS["view"]),
        ("home", "/"),
        ("board default", "/contests/{slug}/"),
        ("entry page", "/entries/{pk}/"),
        ("API submissions", "/api/submissions/"),
        ("API leaderboard", "/api/contests/{slug}/leaderboard/"),
    )
    connection.close()
    redis.Redis.from_url(WALK_REDIS_URL).flushdb()
    folder = Path(tempfile.mkdtemp(prefix="iibench-walk-"))
    environment = production_environment(
        database_url=BENCH_DATABASE_URL,
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=WALK_REDIS_URL,
    )
    collect_static(environment)
    server = start_gunicorn(
        environment, folder / "gunicorn.log", folder / "media", 3, "bench.walk_wsgi:application"
    )
    missed, rates = [], {}
    try:
        print(f"\n  wrk -t2 -c8 -d{seconds}s on gunicorn (3 workers, production settings)")
        for label, template in pages:
            figures = wrk(server.url + template.format(**values), seconds)
            rates[label] = figures["rate"]
            cost = rates["bare view"] / figures["rate"] if figures["rate"] else float("inf")
            print(f"  {label:<20} {figures['rate']:>9,.0f} req/s  p50 {figures['p50']:>8}  "
                  f"p99 {figures['p99']:>8}  {cost:>5.1f}x the bare view  non-2xx "
                  f"{figures['non_2xx']}")  # fmt: skip
            if figures["non_2xx"] or figures["socket_errors"]:
                missed.append(f"wrk {label}: errors\n{figures['report']}")
            if label == "entry page" and cost > WRK_GOAL:
                missed.append(f"wrk entry page: {cost:.1f}x the bare view")
    finally:
        server.stop()
    return missed


def grown(ratios: dict[int, dict[str, float]]) -> list[str]:
    """The fixed pages (floored by the bare view) whose ratio grew by more than GROWTH_GOAL
    from the smallest size to the largest."""
    if len(ratios) < 2:
        return []
    smallest, largest = ratios[min(ratios)], ratios[max(ratios)]
    fixed = [label for label, _, floor in CASES if floor == "view"]
    return [
        f"{label}: {smallest[label]:.1f}x the bare view at {min(ratios):,}, "
        f"{largest[label]:.1f}x at {max(ratios):,}"
        for label in fixed
        if label in smallest and label in largest and largest[label] > GROWTH_GOAL * smallest[label]
    ]


def filled(entries: int, reuse: bool) -> Contest:
    cache.clear()
    board_cache._kept.clear()
    contest = board_bench.reusable_contest(entries) if reuse else None
    if contest is not None:
        call_command("migrate", verbosity=0)
        return contest
    board_bench.recreate_database()
    call_command("migrate", verbosity=0)
    # The pages' indexes (migration *_million_page_indexes) built once over the filled table,
    # not kept up row by row through the fill: dropped and made again by the migration's own
    # statements, so the schema at the end is the migrations' own. (Migrating back before it
    # also unmade the migrations after it, whose columns the fill writes.)
    statements = _page_index_statements()
    with connection.cursor() as cursor:
        for _, drop in reversed(statements):
            cursor.execute(drop)
    contest = board_bench.fill_contest(entries)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        for create, _ in statements:
            cursor.execute(create)
        cursor.execute("ANALYZE submissions_submission")  # the expression indexes' statistics
    print(f"  the pages' indexes built in {time.perf_counter() - started:.1f} s")
    # The fill wrote its rows without the ORM's saves, which keep the home page's chart.
    print(f"  the engine chart's bests: {engine_bests_rebuild()} groups")
    return contest


def _page_index_statements() -> list[tuple[str, str]]:
    """The (create, drop) statements of the migration that makes the pages' indexes (the lead
    may renumber it)."""
    from importlib import import_module

    from django.db.migrations.loader import MigrationLoader

    graph = MigrationLoader(connection).graph
    (node,) = [
        key for key in graph.nodes if key[0] == "submissions" and key[1].endswith("_page_indexes")
    ]
    return import_module(f"submissions.migrations.{node[1]}")._statements()


def only_labels(text: str) -> tuple[set[str], str]:
    """`--only`'s labels, comma-separated as printed; a label holding a comma ("search, a rare
    name") is its pieces joined again, the longest label first ("entry page, an eligible entry"
    is not "entry page" and a piece left over). (labels, what named no label)."""
    known = {label for label, _, _ in CASES}
    pieces, labels, at = text.split(","), set(), 0
    while at < len(pieces):
        for end in range(len(pieces), at, -1):
            label = ",".join(pieces[at:end]).strip()
            if label in known:
                labels.add(label)
                at = end
                break
        else:
            return labels, ",".join(pieces[at:]).strip()
    return labels, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="entries, in turn")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--pairs", type=int, default=3, help="fresh processes per size")
    parser.add_argument("--wrk-seconds", type=int, default=10, help="0: no wrk")
    parser.add_argument("--reuse", action="store_true", help="keep a filled bench database")
    parser.add_argument(
        "--only",
        default=None,
        help="comma-separated labels of the cases to walk, as printed (the floors always)",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--contest-id", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("urls", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.urls, args.repeat, args.contest_id)
        return 0
    only = None
    if args.only is not None:
        only, unknown = only_labels(args.only)
        if unknown:
            parser.error(f"--only: no such label: {unknown}")
    missed, ratios = [], {}
    for entries in (int(size) for size in args.sizes.split(",")):
        print(f"\nurl_walk: {entries:,} entries, database {BENCH_DATABASE_URL}, "
              f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
        contest = filled(entries, args.reuse)
        ratios[entries] = {}
        found = walk(contest, args.repeat, args.pairs, ratios[entries], only)
        if args.wrk_seconds:
            found += wrk_pages(contest, args.wrk_seconds)
        missed += [f"{entries:,} entries, {line}" for line in found]
        print(f"  load average after: {os.getloadavg()[0]:.1f}")
    missed += grown(ratios)
    for line in missed:
        print(f"MISSED {line}")
    print(
        "goals (each page of rows within 3x its floor, a fixed page's ratio to the bare view "
        "not 1.5x larger at the largest size than at the smallest, at most 1 MB, the search "
        "under 50 ms, the entry page under wrk within 5x the bare view): "
        f"{'MISSED' if missed else 'met'}"
    )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
