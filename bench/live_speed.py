"""200 streamed runs streaming at once into the production server (gunicorn, PostgreSQL,
Redis, loopback only): each appends a batch every 5 s for 60 s, as the witness client does.

    .venv/bin/python bench/live_speed.py [--runs 200] [--seconds 60] [--every 5] [--workers 3]

Reports appends/s, the latency of an append (median, p99) and the lines lost: every line sent
must be stored once. Uses a scratch PostgreSQL database, created fresh and dropped afterwards.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCRATCH_DB = "iibench_bench_live"
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
    args = parser.parse_args()
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
        f"{max(stored - expected, 0):,}"
    )


if __name__ == "__main__":
    main()
