"""The whole upload of a 2,000,000-line log, gzipped, to a stored and checked entry, as the
production server does it: time, the serving process's peak memory, and 8 uploads at once.

    .venv/bin/python bench/upload_speed.py [--lines 2000000] [--repeat 3] [--at-once 8] [--workers 3]

The same log as parse_speed.py (the 2023 Python-iibench format, 62 MB .gz) is POSTed through
the REST API (multipart parsing, SHA-256, parsing, figures, every ground rule, the series packed
and downsampled for the plot, the file stored) to gunicorn with the production settings, on a
scratch PostgreSQL database (BENCH_DATABASE_URL's name + "_upload"), dropped afterwards.

1. `--repeat` uploads (3), one after another, to a server of one worker warmed by one page:
   the seconds each takes (median and range; goal <= 2.5 s), the worker's CPU seconds for each
   (what the machine's load moves least) and its peak resident memory over them, VmHWM
   (goal <= 300 MB).
2. `--at-once` uploads of it released together, each to a contest of its own, to a server of
   `--workers` workers: the site reads LOG_READS_AT_ONCE of them at once (one fewer than the
   workers) and answers the others 503 with Retry-After; each client retries after the time
   it was told (and a random part of a second) until it gets its answer. Every one answered
   201 in the end and stored once, the retries counted, no worker killed or replaced, and the
   peak of the server's total resident memory (master and workers, sampled every 20 ms).
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
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
    drop_database,
    fresh_database,
    scratch_url,
    use_scratch,
)
from bench.scratch_site import serve as serve_site  # noqa: E402

SCRATCH_URL = scratch_url("_upload")
use_scratch(SCRATCH_URL)

SECONDS_GOAL = 2.5
MEMORY_GOAL_MB = 300


def prepare_log(lines: int) -> Path:
    from bench.parse_speed import OUT, generate

    OUT.mkdir(parents=True, exist_ok=True)
    log = OUT / f"python-2023-{lines}.log"
    gz = log.with_suffix(".log.gz")
    if not log.exists():
        generate(log, lines)
    if not gz.exists():
        with log.open("rb") as plain, gzip.open(gz, "wb", compresslevel=6) as packed:
            while block := plain.read(1 << 20):
                packed.write(block)
    return gz


def setup_database(contests: int) -> list[str]:
    """A fresh scratch database with `contests` open contests; an API token per contest."""
    fresh_database(SCRATCH_URL)
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from testing.factories import ContestFactory, UserFactory

    keys = []
    for number in range(contests):
        ContestFactory(slug=f"bench-{number}", target_rows=1_000_000_000)
        keys.append(Token.objects.create(user=UserFactory()).key)
    connection.close()
    return keys


def rss_mb(pid: int, field: str) -> float:
    """VmRSS or VmHWM of a process in MB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used: on a shared machine the wall time of an
    upload moves with the load, its CPU time much less."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workers_of(master: int) -> list[int]:
    try:
        with open(f"/proc/{master}/task/{master}/children") as children:
            return [int(pid) for pid in children.read().split()]
    except FileNotFoundError:
        return []


class MemoryWatch:
    """The peak of the server's total resident memory, sampled every 20 ms in a thread."""

    def __init__(self, master: int):
        self.master, self.peak, self.seen = master, 0.0, set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            pids = [self.master, *workers_of(self.master)]
            self.seen.update(pids[1:])
            self.peak = max(self.peak, sum(rss_mb(pid, "VmRSS") for pid in pids))

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def post(url: str, key: str, contest: str, log: bytes) -> tuple[int, str, float, str | None]:
    """The upload's status, body, seconds and Retry-After."""
    from testing.entries import DECLARED
    from testing.hostile import multipart

    fields = {
        "contest": contest,
        **{k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in DECLARED.items()},
    }
    parts = [(name, value, None, None) for name, value in fields.items()]
    body, content_type = multipart([*parts, ("log", log, "run.log.gz", "application/gzip")])
    request = urllib.request.Request(  # noqa: S310 - our own server on loopback
        f"{url}/api/submissions/", data=body, method="POST",
        headers={"Authorization": f"Token {key}", "Content-Type": content_type},
    )  # fmt: skip
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:  # noqa: S310
            answer = response.status, response.read().decode(), response.headers["Retry-After"]
    except urllib.error.HTTPError as error:
        answer = error.code, error.read().decode(), error.headers["Retry-After"]
    return answer[0], answer[1], time.perf_counter() - started, answer[2]


def post_until_read(url: str, key: str, contest: str, log: bytes) -> tuple[int, str, int]:
    """Upload until the site reads the log: after each 503 the Retry-After it said and a
    random part of a second (clients told the same do not all come back at once). The
    answer's status and body, and the retries it took."""
    for retries in range(1000):
        status, body, _, retry_after = post(url, key, contest, log)
        if status != 503 or retry_after is None:
            return status, body, retries
        time.sleep(float(retry_after) + random.uniform(0, 1))
    return status, body, retries


def serve(folder: Path, workers: int):
    return serve_site(
        folder,
        url=SCRATCH_URL,
        workers=workers,
        log_name=f"gunicorn-{workers}.log",
        UPLOADS_PER_HOUR="1000",
    )


def stored_per_contest() -> dict[str, int]:
    from django.db import connection
    from django.db.models import Count

    from submissions.models import Submission

    counts = dict(
        Submission.objects.values_list("contest__slug").annotate(n=Count("id")).order_by()
    )
    connection.close()
    return counts


def uploads_at_once(folder: Path, keys: list[str], log: bytes, args) -> list[str]:
    """`--at-once` uploads released together, each to a contest of its own; what failed."""
    server = serve(folder, workers=args.workers)
    try:
        before = set(workers_of(server.process.pid))
        barrier = threading.Barrier(args.at_once)

        def one(number: int) -> tuple[int, str, int]:
            barrier.wait()
            first = args.repeat + number
            return post_until_read(server.url, keys[first], f"bench-{first}", log)

        started = time.perf_counter()
        with (
            MemoryWatch(server.process.pid) as watch,
            ThreadPoolExecutor(max_workers=args.at_once) as pool,
        ):
            answers = list(pool.map(one, range(args.at_once)))
        elapsed = time.perf_counter() - started
        after = set(workers_of(server.process.pid))
        server_log = server.log
    finally:
        server.stop()
    counts = stored_per_contest()
    statuses = [status for status, _, _ in answers]
    retries = [count for _, _, count in answers]
    stored_once = all(counts.get(f"bench-{args.repeat + n}") == 1 for n in range(args.at_once))
    killed = before != after or watch.seen - before or "WORKER TIMEOUT" in server_log
    print(
        f"{args.at_once} uploads of it at once (a contest each), gunicorn with "
        f"{args.workers} workers: statuses {sorted(statuses)} after {sum(retries)} retries "
        f"on 503 (most for one upload {max(retries)}: the site reads "
        f"{os.environ.get('LOG_READS_AT_ONCE') or max(1, args.workers - 1)} at once), "
        f"{'each stored once' if stored_once else f'stored: {counts}'}, "
        f"{'a worker was killed or replaced' if killed else 'no worker killed'}, all "
        f"answered in {elapsed:.1f} s; peak total resident memory {watch.peak:,.0f} MB "
        f"(master and {args.workers} workers)"
    )
    if statuses != [201] * args.at_once or not stored_once or killed:
        return [f"concurrent uploads: {[a[:2] for a in answers]}\n{server_log[-3000:]}"]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--at-once", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="single uploads, one after another")
    args = parser.parse_args()
    gz = prepare_log(args.lines)
    log = gz.read_bytes()
    keys = setup_database(args.repeat + args.at_once)
    folder = Path(tempfile.mkdtemp(prefix="iibench-upload-"))
    failures = []
    try:
        server = serve(folder, workers=1)
        try:
            (worker,) = workers_of(server.process.pid)
            # A worker imports most of the site on its first request: not an upload's cost.
            urllib.request.urlopen(f"{server.url}/", timeout=60).read()  # noqa: S310
            walls, cpus, loads = [], [], []
            resident_before = rss_mb(worker, "VmRSS")
            for number in range(args.repeat):
                cpu_before = cpu_seconds(worker)
                status, body, seconds, _ = post(server.url, keys[number], f"bench-{number}", log)
                cpus.append(cpu_seconds(worker) - cpu_before)
                walls.append(seconds)
                loads.append(os.getloadavg()[0])
                if status != 201:
                    failures.append(f"single upload answered {status}: {body[:500]}")
            peak = rss_mb(worker, "VmHWM")
            kept = rss_mb(worker, "VmRSS") - resident_before
        finally:
            server.stop()
        seconds = statistics.median(walls)
        time_verdict = "ok" if seconds <= SECONDS_GOAL else "MISSED"
        memory_verdict = "ok" if peak <= MEMORY_GOAL_MB else "MISSED"
        print(
            f"upload of {gz.name} ({len(log) / 1e6:,.1f} MB gzip, {args.lines:,} lines) to a "
            f"stored, checked entry, gunicorn with 1 worker, {args.repeat} times one after "
            f"another: median {seconds:.2f} s ({min(walls):.2f}-{max(walls):.2f}; goal <= "
            f"{SECONDS_GOAL} s: {time_verdict}); the worker's CPU median "
            f"{statistics.median(cpus):.2f} s ({min(cpus):.2f}-{max(cpus):.2f}); load average "
            f"{min(loads):.1f}-{max(loads):.1f}; the worker's peak resident memory over them "
            f"{peak:,.0f} MB (goal <= {MEMORY_GOAL_MB} MB: {memory_verdict}), {resident_before:,.0f} MB "
            f"of it before them, once warmed by a page; resident after them {kept:+,.0f} MB"
        )

        if args.at_once:
            failures += uploads_at_once(folder, keys, log, args)
    finally:
        drop_database(SCRATCH_URL)
        # The stored copies of the log: 62 MB an upload, ~600 MB a run.
        shutil.rmtree(folder, ignore_errors=True)
    for failure in failures:
        print(f"FAILED {failure[:3000]}", file=sys.stderr)
    goals_met = time_verdict == "ok" and memory_verdict == "ok"
    return 1 if failures or not goals_met else 0


if __name__ == "__main__":
    sys.exit(main())
