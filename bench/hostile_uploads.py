"""Four hostile uploads at once against gunicorn with the production settings, and `GET /`
meanwhile (issue 40): each upload a real C benchmark log (MariaDB) with millions of lines the
parser reads and no report (testing/bombs.py), gzipped at level 1; each must be refused with a
413 naming its limit, no worker killed, while the home page answers within a second.

    .venv/bin/python bench/hostile_uploads.py [--lines 50000000] [--accounts 1,4] [--workers 3]

Once per number of `--accounts`: 1, the four sent by one entrant (the per-user upload lock
answers three of them 429 at once and the fourth holds one worker); 4, by four entrants, one
each: the site reads LOG_READS_AT_ONCE of them (one fewer than the `--workers` sync workers)
and answers the others 503 with Retry-After at once, so one worker stays free for pages. The
hostile clients do not retry (each retry would be answered the same while the bound is full).
Prints each upload's answer and time, every GET's latency with their median and maximum, and
the peak resident memory of the web processes (each worker's VmHWM and the sum of master and
workers sampled every 20 ms).
Runs on a scratch PostgreSQL database (BENCH_DATABASE_URL's name + "_hostile", dropped after)
and empties its Redis database first (REDIS_TEST_URL; counters of earlier runs would refuse).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scratch_site import (  # noqa: E402
    REDIS_URL,
    drop_database,
    fresh_database,
    scratch_url,
    use_scratch,
)
from bench.scratch_site import serve as serve_site  # noqa: E402
from bench.upload_speed import MemoryWatch, rss_mb, workers_of  # noqa: E402
from bench.upload_speed import post as upload_post  # noqa: E402

SCRATCH_URL = scratch_url("_hostile")
use_scratch(SCRATCH_URL)

GET_GOAL_SECONDS = 1.0
# The four uploads: what each repeats, gzipped at level 1 (distinct settings do not compress
# like repeated lines: a tenth of the lines keeps that upload a few MB).
HOSTILE = (("comment", "gzip", 1), ("blank", "members", 1), ("trailer", "gzip", 1),
           ("settings", "gzip", 10))  # fmt: skip


def setup_database(accounts: int) -> list[str]:
    """A fresh scratch database with one open contest; an API token for each account."""
    fresh_database(SCRATCH_URL)
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from testing.factories import ContestFactory, UserFactory

    ContestFactory(slug="hostile", target_rows=1_000_000_000)
    keys = [Token.objects.create(user=UserFactory()).key for _ in range(accounts)]
    connection.close()
    return keys


def serve(folder: Path, workers: int):
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    return serve_site(folder, url=SCRATCH_URL, workers=workers)


def hostile_logs(lines: int) -> list[tuple[str, bytes]]:
    from testing.bombs import bomb_bytes

    return [
        (f"{kind} lines, {packing}", bomb_bytes(kind, packing, lines // fraction))
        for kind, packing, fraction in HOSTILE
    ]


def post(url: str, key: str, log: bytes) -> tuple[int, str, float]:
    """The upload's status, body and seconds, to the hostile contest."""
    status, body, seconds, _ = upload_post(url, key, "hostile", log)
    return status, body, seconds


class HomePageProbe:
    """`GET /` one after another (a tenth of a second apart) in a thread, each one's latency."""

    def __init__(self, url: str):
        self.url, self.latencies, self.failures = url, [], []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(f"{self.url}/", timeout=60) as page:  # noqa: S310
                    page.read()
                    if page.status != 200:
                        self.failures.append(page.status)
            except (urllib.error.URLError, TimeoutError) as error:
                self.failures.append(str(error))
            self.latencies.append(time.perf_counter() - started)
            self._stop.wait(0.1)

    def __enter__(self) -> HomePageProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def run(server, keys: list[str], logs: list[tuple[str, bytes]]) -> list[str]:
    before = set(workers_of(server.process.pid))
    barrier = threading.Barrier(len(logs))

    def one(number: int) -> tuple[int, str, float]:
        barrier.wait()
        return post(server.url, keys[number % len(keys)], logs[number][1])

    with MemoryWatch(server.process.pid) as watch, HomePageProbe(server.url) as probe:
        time.sleep(0.5)  # a few GETs before, to see the page's own time
        with ThreadPoolExecutor(max_workers=len(logs)) as pool:
            answers = list(pool.map(one, range(len(logs))))
        time.sleep(0.5)
    workers = workers_of(server.process.pid)
    peaks = [rss_mb(pid, "VmHWM") for pid in workers]
    killed = before != set(workers) or "WORKER TIMEOUT" in server.log
    for (what, log), (status, body, seconds) in zip(logs, answers, strict=True):
        said = body.replace("\n", " ")[:190]
        print(f"  {what} ({len(log) / 1e6:,.2f} MB sent): {status} in {seconds:.2f} s: {said}")
    latencies = probe.latencies
    print(
        f"  GET / x{len(latencies)} meanwhile (s): "
        + " ".join(f"{latency:.3f}" for latency in latencies)
    )
    median, most = statistics.median(latencies), max(latencies)
    verdict = "ok" if most <= GET_GOAL_SECONDS and not probe.failures else "MISSED"
    print(
        f"  GET / median {median:.3f} s, max {most:.3f} s (goal <= {GET_GOAL_SECONDS} s: "
        f"{verdict}); web processes' peak resident memory: workers "
        + ", ".join(f"{peak:,.0f}" for peak in peaks)
        + f" MB (VmHWM), master and workers together {watch.peak:,.0f} MB; "
        + ("a worker was killed or replaced" if killed else "no worker killed")
    )
    failures = []
    if any(status not in (413, 429, 503) for status, _, _ in answers):
        failures.append(f"an upload was not refused: {[a[:2] for a in answers]}")
    if verdict != "ok" or killed:
        failures.append(f"GET / or the workers: {probe.failures[:5]}\n{server.log[-3000:]}")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=50_000_000, help="lines of each bomb")
    parser.add_argument(
        "--accounts", default="1,4", help="entrants sending the four, one run per number"
    )
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
    logs = hostile_logs(args.lines)
    accounts = [int(number) for number in args.accounts.split(",")]
    keys = setup_database(max(accounts))
    folder = Path(tempfile.mkdtemp(prefix="iibench-hostile-"))
    failures = []
    try:
        for count in accounts:
            server = serve(folder, args.workers)
            try:
                urllib.request.urlopen(f"{server.url}/", timeout=60).read()  # noqa: S310
                print(
                    f"{len(logs)} hostile uploads at once ({args.lines:,} lines each) from "
                    f"{count} account(s), gunicorn with the production settings and "
                    f"{args.workers} workers; load average {os.getloadavg()[0]:.1f}:"
                )
                failures += run(server, keys[:count], logs)
            finally:
                server.stop()
    finally:
        drop_database(SCRATCH_URL)
        shutil.rmtree(folder, ignore_errors=True)
    for failure in failures:
        print(f"FAILED {failure[:3000]}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
