"""The production server under load: gunicorn + whitenoise with the production settings,
against a scratch PostgreSQL database `iibench_load` holding a contest of 10,000 entries.

1. `wrk -t4 -c32 -d30s --latency` (32 concurrent clients for 30 s, loopback only) on the
   leaderboard page and on an entry page: requests/s, p50, p99, non-2xx and socket errors.
2. 20 different logs submitted at once through the API, each with its own token: all 20
   stored exactly once, none lost; then one log sent 20 times at once: stored once, 19 clear
   refusals (400), no 5xx.

Exits 1 when any request failed or an upload was lost or doubled.

    .venv/bin/python bench/load_speed.py [--entries 10000] [--seconds 30] [--workers 3]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LOAD_DATABASE_URL = os.environ.get(
    "LOAD_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_load"
)
# The server's cache and broker: a Redis database of its own, emptied first.
LOAD_REDIS_URL = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/14")
# leaderboard_speed.py fills the board; it builds it in the database named here.
os.environ["BENCH_DATABASE_URL"] = LOAD_DATABASE_URL
os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
os.environ["TEST_DATABASE_URL"] = LOAD_DATABASE_URL
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from bench import leaderboard_speed  # noqa: E402
from submissions.contests import ranks as contest_ranks  # noqa: E402
from submissions.models import Submission  # noqa: E402
from testing.entries import DECLARED  # noqa: E402
from testing.hostile import multipart  # noqa: E402
from testing.logs import python_log  # noqa: E402
from testing.server import (  # noqa: E402
    collect_static,
    production_environment,
    start_gunicorn,
)

CLIENTS = 32
AT_ONCE = 20


def wrk(url: str, seconds: int) -> dict:
    """Run wrk against `url`; its figures, parsed from the report it prints."""
    done = subprocess.run(
        ["wrk", "-t4", f"-c{CLIENTS}", f"-d{seconds}s", "--latency", url],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    report = done.stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", report, re.MULTILINE))
    socket_errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", report
    )
    return {
        "requests": int(re.search(r"(\d+) requests in", report)[1]),
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", report)[1]),
        "p50": latency["50"],
        "p99": latency["99"],
        "non_2xx": int((re.search(r"Non-2xx or 3xx responses: (\d+)", report) or [0, 0])[1]),
        "socket_errors": sum(map(int, socket_errors.groups())) if socket_errors else 0,
        "report": report,
    }


def post_at_once(url: str, keys: list[str], logs: list[bytes]) -> list[tuple[int, str]]:
    """POST every log with its token, all released at the same moment."""
    start = threading.Barrier(len(logs))
    fields = {
        "contest": "bench",
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in DECLARED.items()},
    }

    def post(key: str, log: bytes) -> tuple[int, str]:
        parts = [(name, value, None, None) for name, value in fields.items()]
        body, content_type = multipart([*parts, ("log", log, "run.log", "text/plain")])
        request = urllib.request.Request(  # noqa: S310 - our own server on loopback
            url, data=body, method="POST",
            headers={"Authorization": f"Token {key}", "Content-Type": content_type},
        )  # fmt: skip
        start.wait()
        try:
            with urllib.request.urlopen(request, timeout=300) as response:  # noqa: S310
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    with ThreadPoolExecutor(max_workers=len(logs)) as pool:
        return list(pool.map(post, keys, logs))


def upload_logs(count: int) -> list[bytes]:
    """Distinct Python iibench logs of 1,000 reports (1B rows), each its own curve."""
    reports = 1_000
    return [
        python_log(
            rows=reports * 1_000_000,
            rates=[90_000.0 / (1 + r / (20 + i)) for r in range(reports)],
        )
        for i in range(count)
    ]


def tokens(count: int) -> list[str]:
    users = [get_user_model().objects.create(username=f"load{i}") for i in range(count)]
    return [Token.objects.create(user=user).key for user in users]


def print_wrk(label: str, figures: dict) -> None:
    print(
        f"  {label:<34} {figures['rate']:>8,.0f} req/s  p50 {figures['p50']:>8}  "
        f"p99 {figures['p99']:>8}  {figures['requests']:>7,} requests  "
        f"non-2xx {figures['non_2xx']}  socket errors {figures['socket_errors']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers (compose: 3)")
    args = parser.parse_args()
    print(f"load_speed: {args.entries:,} entries in {LOAD_DATABASE_URL}, gunicorn with "
          f"{args.workers} workers, wrk with {CLIENTS} connections for {args.seconds} s")  # fmt: skip

    leaderboard_speed.recreate_database()
    call_command("migrate", verbosity=0)
    contest = leaderboard_speed.fill_contest(args.entries)
    entry = contest_ranks.contest_leader(contest=contest)  # ranks are derived: none to write
    keys = tokens(2 * AT_ONCE)
    connection.close()

    redis.Redis.from_url(LOAD_REDIS_URL).flushdb()
    folder = Path(tempfile.mkdtemp(prefix="iibench-load-"))
    environment = production_environment(
        database_url=LOAD_DATABASE_URL,
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=LOAD_REDIS_URL,
    )
    environment["UPLOADS_PER_HOUR"] = "1000"
    collect_static(environment)
    server = start_gunicorn(
        environment, folder / "gunicorn.log", folder / "media", workers=args.workers
    )
    failures = []
    try:
        board = wrk(f"{server.url}/contests/{contest.slug}/", args.seconds)
        page = wrk(f"{server.url}{entry.get_absolute_url()}", args.seconds)
        print(f"\n  {'wrk -t4 -c32 --latency, ' + str(args.seconds) + ' s':<34}")
        print_wrk(f"leaderboard /contests/{contest.slug}/", board)
        print_wrk(f"entry page {entry.get_absolute_url()}", page)
        for label, figures in (("leaderboard", board), ("entry page", page)):
            if figures["non_2xx"] or figures["socket_errors"]:
                failures.append(f"{label}: errors under load\n{figures['report']}")

        logs = upload_logs(AT_ONCE)
        started = time.perf_counter()
        answers = post_at_once(f"{server.url}/api/submissions/", keys[:AT_ONCE], logs)
        seconds = time.perf_counter() - started
        statuses = sorted(status for status, _ in answers)
        stored = Submission.objects.filter(contest=contest).count() - args.entries
        distinct = (
            Submission.objects.filter(contest=contest, owner__username__startswith="load")
            .values("log_sha256")
            .distinct()
            .count()
        )
        print(f"\n  {AT_ONCE} different logs at once (1,000 reports each): "
              f"statuses {summary(statuses)}, {stored} stored, {distinct} distinct, "
              f"all answered in {seconds:.1f} s")  # fmt: skip
        if statuses != [201] * AT_ONCE or stored != AT_ONCE or distinct != AT_ONCE:
            failures.append(f"distinct uploads: {answers}")

        started = time.perf_counter()
        answers = post_at_once(
            f"{server.url}/api/submissions/", keys[AT_ONCE:], [logs[0] + b"\n"] * AT_ONCE
        )
        seconds = time.perf_counter() - started
        statuses = sorted(status for status, _ in answers)
        again = Submission.objects.filter(contest=contest).count() - args.entries - AT_ONCE
        clear = sum("already submitted" in body for status, body in answers if status == 400)
        print(f"  the same log {AT_ONCE} times at once: statuses {summary(statuses)}, "
              f"{again} stored, {clear} refusals naming the entry, in {seconds:.1f} s")  # fmt: skip
        if statuses != [201] + [400] * (AT_ONCE - 1) or again != 1 or clear != AT_ONCE - 1:
            failures.append(f"duplicate uploads: {answers}")
    finally:
        server.stop()
        drop_database()
    for failure in failures:
        print(f"\nFAILED {failure[:3000]}", file=sys.stderr)
    if failures:
        print(f"\ngunicorn log:\n{server.log[-3000:]}", file=sys.stderr)
    return 1 if failures else 0


def drop_database() -> None:
    import psycopg

    connection.close()
    name = urlsplit(LOAD_DATABASE_URL).path.lstrip("/")
    admin_url = urlsplit(LOAD_DATABASE_URL)._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def summary(statuses: list[int]) -> str:
    counts = {status: statuses.count(status) for status in sorted(set(statuses))}
    return ", ".join(f"{count} x {status}" for status, count in counts.items())


if __name__ == "__main__":
    sys.exit(main())
