"""Live ingest, two lines.

1. 200 streamed runs streaming at once into the production server (gunicorn, PostgreSQL,
   Redis, loopback only): each appends a batch every 5 s for 60 s, as the witness client does.
   Reports appends/s, the latency of an append (median, p99), the machine's load beside it and
   the lines lost: every line sent must be stored once.
2. Appends per CPU-second, this tree against issue 31's "today's code" (`--baseline`, 19c391f
   by default; checked out with `git worktree` in a temporary folder), side by side:
   `--cpu-pairs` pairs of fresh processes, old then new then new then old..., each streaming
   one run of the C benchmark on
   MariaDB (its ~700-line header) and timing `--cpu-appends` appends of 5 report lines after
   its head, in process (no network): through the tree's WSGI application as gunicorn calls
   it (`--cpu-through wsgi`, the default; persistent database connections, as in production)
   or through Django's test client (`client`, the figures before 26 Nov afternoon): the
   process's CPU plus its PostgreSQL backend's. Median ratio and range over the pairs.

    .venv/bin/python bench/live_speed.py [--runs 200] [--seconds 60] [--every 5] [--workers 3]
        [--cpu-pairs 5] [--cpu-appends 400] [--cpu-through wsgi|client] [--baseline <commit>]
        [--only load|cpu]

The scratch databases' names end in `BENCH_DATABASE_SUFFIX` (environment, default none), so
that two checkouts can bench at once.

Each line uses scratch PostgreSQL databases, created fresh and dropped afterwards.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCRATCH_DB = "iibench_bench_live" + os.environ.get("BENCH_DATABASE_SUFFIX", "")
# "Today's code" of issue 31, which asks for 10x its appends per CPU-second (main's merge base
# moved on since, with the first half of the work).
ISSUE_CODE = "19c391f"
REDIS_URL = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/15")


def post(url: str, key: str, body: dict) -> tuple[int, float]:
    request = urllib.request.Request(  # noqa: S310 - the bench's own loopback server
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310  # nosec B310
        response.read()
        return response.status, time.perf_counter() - started


HEADER = (
    (ROOT / "submissions/tests/fixtures/logs/iibench-c-completed.log").read_text().splitlines()[:26]
)


def report_lines(seq: int, per_batch: int = 5) -> list[str]:
    """C-benchmark report lines (the registry parses them for the live curve): the header in
    the first batch, then `per_batch` reports of 10,000 rows at 2,000 rows/s."""
    lines = list(HEADER) if seq == 0 else []
    for n in range(seq * per_batch + 1, (seq + 1) * per_batch + 1):
        rows, seconds = n * 10_000, n * 5.0
        lines.append(f"{rows}\t{seconds:.3f}\t2000.0\t2000.0\t0\t0.0\t0\t0.0")
    return lines


def stream(
    base: str, key: str, run_id: int, batches: int, every: float, start_at: float, out: dict
) -> None:
    """One client: a batch every `every` seconds; a failed append is sent again (same seq), as
    the witness client does, so a lost line is the registry's fault, not the bench's."""
    time.sleep(max(0.0, start_at - time.monotonic()))
    for seq in range(batches):
        lines = report_lines(seq)
        while True:
            try:
                _, seconds = post(
                    f"{base}/api/live/{run_id}/batches/", key, {"seq": seq, "lines": lines}
                )
                break
            except Exception as error:
                out["errors"][type(error).__name__ + ": " + str(error)[:60]] += 1
                time.sleep(1.0)
        out["latencies"].append(seconds)
        out["sent_lines"] += len(lines)
        time.sleep(max(0.0, start_at + (seq + 1) * every - time.monotonic()))


def _admin_execute(statement: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(statement)


def django_on_scratch_database(media: Path) -> None:
    """Django on a fresh scratch database, migrated: the server under test uses it too."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
    os.environ["TEST_DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{SCRATCH_DB}"
    os.environ["MEDIA_ROOT"] = str(media)
    _admin_execute(f"DROP DATABASE IF EXISTS {SCRATCH_DB}")
    _admin_execute(f"CREATE DATABASE {SCRATCH_DB}")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.MEDIA_ROOT = str(media)
    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)


def drop_scratch_database() -> None:
    from django.db import connections

    connections.close_all()
    _admin_execute(f"DROP DATABASE IF EXISTS {SCRATCH_DB}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--every", type=float, default=5)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--cpu-pairs", type=int, default=5)
    parser.add_argument("--cpu-appends", type=int, default=400)
    parser.add_argument("--cpu-through", choices=("wsgi", "client"), default="wsgi")
    parser.add_argument(
        "--baseline", default=ISSUE_CODE, help="commit to compare (default: issue 31's code)"
    )
    parser.add_argument("--only", choices=("load", "cpu"), default="")
    parser.add_argument("--cpu-child", nargs=3, metavar=("TREE", "DATABASE", "MIGRATE"))
    args = parser.parse_args()
    if args.cpu_child:
        tree, database, migrate = args.cpu_child
        measured = cpu_child(
            Path(tree), database, migrate == "1", args.cpu_appends, args.cpu_through
        )
        print(json.dumps(measured))
        return
    if args.only != "cpu":
        load_line(args)
    if args.only != "load":
        print(cpu_line(args))


def load_line(args) -> None:
    # The scratch runs' ids start again at 1 in a scratch database: counters an earlier bench
    # left in this Redis database would charge them (answers 429, retried, and a p99 of a
    # second), so the line starts from an empty one, as a fresh site does.
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    folder = Path(tempfile.mkdtemp(prefix="live-bench-"))
    django_on_scratch_database(folder / "media")
    from testing.server import collect_static, production_environment, start_gunicorn

    environment = production_environment(
        database_url=f"postgresql://postgres@127.0.0.1:5432/{SCRATCH_DB}",
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=REDIS_URL,
    )
    environment["LIVE_RUNS_PER_HOUR"] = str(args.runs * 2)
    collect_static(environment)
    server = start_gunicorn(environment, folder / "gunicorn.log", folder / "media", args.workers)
    try:
        report = run(server.url, args)
    finally:
        server.stop()
        drop_scratch_database()
    print(report)


# -- 2. appends per CPU-second, old and new side by side -------------------------------------

MARIADB_LOG = ROOT / "submissions/tests/fixtures/logs/iibench-c-mariadb-100k-cadence.log"


def mariadb_header_and_report() -> tuple[list[str], list[str]]:
    """The C benchmark's log on MariaDB up to its column header, and its first report's
    fields (the template of every report streamed)."""
    lines = MARIADB_LOG.read_text().splitlines()
    first = next(index for index, line in enumerate(lines) if line[:1].isdigit())
    return lines[:first], lines[first].split("\t")


def mariadb_reports(first: int, count: int, fields: list[str]) -> list[str]:
    """Reports number first..first+count-1: 100,000 rows each, 0.7 s apart."""
    lines = []
    for number in range(first, first + count):
        fields = [str(number * 100_000), f"{number * 0.7:.3f}", *fields[2:]]
        lines.append("\t".join(fields))
    return lines


def _backend_cpu_seconds(pid: int) -> float:
    """utime + stime of a PostgreSQL backend, from /proc (the server is on this machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wsgi_poster(application, key: str):
    """post(url, body) through a WSGI application, as gunicorn calls it for a witness client's
    request (its headers); the answer's JSON."""

    def post(url: str, body: dict) -> dict:
        data = json.dumps(body).encode()
        environ = {
            "REQUEST_METHOD": "POST", "PATH_INFO": url, "SCRIPT_NAME": "", "QUERY_STRING": "",
            "SERVER_NAME": "testserver", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "testserver", "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)),
            "HTTP_ACCEPT": "application/json", "HTTP_AUTHORIZATION": f"Bearer {key}",
            "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http", "wsgi.multithread": False, "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }  # fmt: skip
        status = []
        result = application(environ, lambda line, headers, exc_info=None: status.append(line))
        try:
            content = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        assert status[0].startswith(("200", "201")), (status, content[:500])
        return json.loads(content)

    return post


def cpu_child(tree: Path, database: str, migrate: bool, appends: int, through: str) -> dict:
    """In a fresh process, with the code of `tree`: one run of the C benchmark on MariaDB
    streamed through the API, and the CPU `appends` appends of 5 reports cost after its head
    (this process's and its PostgreSQL backend's)."""
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
    os.environ["TEST_DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{database}"
    os.environ["REDIS_URL"] = REDIS_URL
    os.environ["LIVE_BATCHES_PER_MINUTE"] = str(10**9)
    os.environ["LIVE_RUNS_PER_HOUR"] = str(10**9)  # the bench opens a run in every child
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["MEDIA_ROOT"] = tempfile.mkdtemp(prefix="live-cpu-")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if migrate:
        _admin_execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        _admin_execute(f'CREATE DATABASE "{database}"')
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from submissions.live import services as live
    from testing.entries import DECLARED
    from testing.factories import ContestFactory, UserFactory

    if migrate:
        call_command("migrate", verbosity=0)
    # Each child adds its own contest and user to the side's database.
    unique = time.time_ns()
    contest = ContestFactory(slug=f"cpu-{unique}")
    user = UserFactory(username=f"cpu-{unique}")
    _, key = live.witness_token_create(user=user, contest=contest)
    if through == "wsgi":
        # As production: one connection kept (CONN_MAX_AGE; never closed here, so that the
        # backend measured stays the same), the request signals sent by the handler.
        connection.close()
        connection.settings_dict["CONN_MAX_AGE"] = None
        from iibench_site.wsgi import application

        post = wsgi_poster(application, key)
    else:
        client = Client(headers={"Authorization": f"Bearer {key}"})

        def post(url: str, body: dict) -> dict:
            response = client.post(url, json.dumps(body), content_type="application/json")
            assert response.status_code in (200, 201), response.content[:500]
            return response.json()

    opened = post(
        "/api/live/",
        {**DECLARED, "run_key": f"cpu-{time.time_ns()}", "machine": {"cores": 8}},
    )
    run_id = opened["id"]
    header, fields = mariadb_header_and_report()
    seq, number = 0, 1
    batches = [header[start : start + 100] for start in range(0, len(header), 100)]
    for lines in batches:
        post(f"/api/live/{run_id}/batches/", {"seq": seq, "lines": lines})
        seq += 1
    for _ in range(14):  # past the head: its first report and 60 lines after it
        post(
            f"/api/live/{run_id}/batches/",
            {"seq": seq, "lines": mariadb_reports(number, 5, fields)},
        )
        seq, number = seq + 1, number + 5
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (backend,) = cursor.fetchone()
    started, backend_started = time.process_time(), _backend_cpu_seconds(backend)
    for _ in range(appends):
        post(
            f"/api/live/{run_id}/batches/",
            {"seq": seq, "lines": mariadb_reports(number, 5, fields)},
        )
        seq, number = seq + 1, number + 5
    python = time.process_time() - started
    database_cpu = _backend_cpu_seconds(backend) - backend_started
    samples = (
        live.LiveSample.objects.filter(run_id=run_id).count()
        if hasattr(live, "LiveSample")
        else None
    )
    return {
        "seconds": (python + database_cpu) / appends,
        "python_ms": python / appends * 1000,
        "database_ms": database_cpu / appends * 1000,
        "samples": samples,
        "expected_samples": number - 1,
    }


def _baseline_commit(requested: str) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", f"{requested}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def cpu_line(args) -> str:
    from bench import ab

    commit = _baseline_commit(args.baseline)
    folder = Path(tempfile.mkdtemp(prefix="live-cpu-bench-"))
    baseline = folder / "baseline"
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(baseline), commit],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    databases = {"old": f"{SCRATCH_DB}_old", "new": f"{SCRATCH_DB}_new"}
    migrated: set[str] = set()

    def side(name: str, tree: Path):
        def start() -> dict:
            migrate = "0" if name in migrated else "1"
            migrated.add(name)
            done = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--cpu-appends",
                 str(args.cpu_appends), "--cpu-through", args.cpu_through,
                 "--cpu-child", str(tree), databases[name], migrate],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode:
                raise RuntimeError(f"the {name} side failed:\n{done.stderr[-3000:]}")
            return json.loads(done.stdout.strip().splitlines()[-1])

        return start

    load_before = os.getloadavg()
    try:
        pairs = ab.interleaved(side("old", baseline), side("new", ROOT), args.cpu_pairs)
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, check=False
        )
        shutil.rmtree(folder, ignore_errors=True)
        for database in databases.values():
            _admin_execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    per_cpu_second = [a["seconds"] / b["seconds"] for a, b in zip(pairs.a, pairs.b, strict=True)]
    load_after = os.getloadavg()
    new = pairs.b[-1]
    return (
        f"appends per CPU-second, {args.cpu_pairs} interleaved pairs of {args.cpu_appends} "
        f"appends of 5 lines after a MariaDB head, through the "
        f"{'WSGI application' if args.cpu_through == 'wsgi' else 'test client'} "
        f"(process + its PostgreSQL backend): old "
        f"({commit[:9]}) {1 / pairs.median('a'):,.0f}/s "
        f"({pairs.median('a', 'python_ms'):.1f} ms Python + "
        f"{pairs.median('a', 'database_ms'):.1f} ms database per append), new "
        f"{1 / pairs.median('b'):,.0f}/s ({pairs.median('b', 'python_ms'):.1f} + "
        f"{pairs.median('b', 'database_ms'):.1f} ms); new/old "
        f"{statistics.median(per_cpu_second):.2f}x ({min(per_cpu_second):.2f}-"
        f"{max(per_cpu_second):.2f}); samples stored {new['samples']:,} of "
        f"{new['expected_samples']:,}; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after"
    )


def run(base: str, args) -> str:
    from submissions.live import services as live
    from submissions.live.models import LiveBatch
    from testing.entries import DECLARED
    from testing.factories import ContestFactory, UserFactory

    contest = ContestFactory(slug="live-bench")
    users = [UserFactory() for _ in range(10)]
    runs = []
    for index in range(args.runs):
        _, key = live.witness_token_create(user=users[index % 10], contest=contest)
        body = {**DECLARED, "run_key": f"bench-run-{index:05d}", "machine": {"cores": 8}}
        request = urllib.request.Request(  # noqa: S310
            f"{base}/api/live/",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310  # nosec B310
            runs.append((key, json.loads(response.read())["id"]))
    batches = int(args.seconds / args.every)
    out = {"latencies": [], "errors": collections.Counter(), "sent_lines": 0}
    start_at = time.monotonic() + 1.0
    threads = [
        # Spread over the first interval, as independent clients would be.
        threading.Thread(
            target=stream,
            args=(
                base,
                key,
                run_id,
                batches,
                args.every,
                start_at + args.every * i / len(runs),
                out,
            ),
        )
        for i, (key, run_id) in enumerate(runs)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start_at
    stored = sum(
        LiveBatch.objects.filter(run__contest=contest).values_list("line_count", flat=True)
    )
    load = os.getloadavg()
    latencies = sorted(out["latencies"])
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else float("nan")
    expected = out["sent_lines"]
    return (
        f"{args.runs} live runs x {batches} appends every {args.every:g} s "
        f"({args.workers} gunicorn workers): {len(latencies):,} appends in {elapsed:.1f} s = "
        f"{len(latencies) / elapsed:,.1f} appends/s; latency median "
        f"{statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max "
        f"{latencies[-1] * 1000:.0f} ms; failed attempts (retried) "
        f"{sum(out['errors'].values())} {dict(out['errors'].most_common(3))}; lines sent "
        f"{expected:,}, stored {stored:,}: lost {max(expected - stored, 0):,}, doubled "
        f"{max(stored - expected, 0):,}; load average at the end {load[0]:.1f} (1 min), "
        f"{load[1]:.1f} (5 min) on {os.cpu_count()} CPUs, the load generator included"
    )


if __name__ == "__main__":
    main()
