"""How long the whole upload of a 2,000,000-line log takes, gzip, to a stored and checked entry.

    .venv/bin/python bench/upload_speed.py [--lines 2000000]

The same log as parse_speed.py (the 2023 Python-iibench format), gzipped, POSTed through the
REST API (multipart parsing, SHA-256, parsing, figures, every ground rule, the series packed and
downsampled for the plot, the file stored) into a scratch PostgreSQL database `iibench_bench`,
created fresh and dropped afterwards.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# A scratch database of its own; BENCH_DATABASE_URL's name (+ "_upload") keeps benches run side
# by side on one server apart.
SCRATCH_DB = (
    os.environ.get("BENCH_DATABASE_URL", "postgresql:///iibench_bench").rsplit("/", 1)[-1]
    + "_upload"
)


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


def django_on_scratch_database(media: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
    os.environ["TEST_DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{SCRATCH_DB}"
    os.environ["MEDIA_ROOT"] = str(media)
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {SCRATCH_DB}")
        admin.execute(f"CREATE DATABASE {SCRATCH_DB}")
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
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {SCRATCH_DB}")


def upload(gz: Path) -> tuple[float, dict]:
    from rest_framework.test import APIClient

    from submissions.models import Submission
    from submissions.tests.conftest import DECLARED
    from submissions.tests.factories import ContestFactory, UserFactory

    contest = ContestFactory(slug="bench", target_rows=1_000_000_000)
    client = APIClient()
    client.force_authenticate(UserFactory())
    with gz.open("rb") as log:
        start = time.perf_counter()
        response = client.post(
            "/api/submissions/",
            {"contest": contest.slug, **DECLARED, "log": log},
            format="multipart",
        )
        seconds = time.perf_counter() - start
    assert response.status_code == 201, response.content[:500]
    entry = Submission.objects.get(pk=response.json()["id"])
    return seconds, {
        "rows": entry.rows,
        "samples": entry.series.count,
        "plot_points": len(entry.series.preview["interval_rate"]["x"]),
        "verdicts": len(entry.verdicts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    args = parser.parse_args()
    gz = prepare_log(args.lines)
    django_on_scratch_database(ROOT / "var" / "bench" / "media")
    try:
        seconds, entry = upload(gz)
    finally:
        drop_scratch_database()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"upload of {gz.name} ({gz.stat().st_size / 1e6:,.1f} MB gzip, {args.lines:,} lines) to a "
        f"stored, checked entry: {seconds:.2f} s; {entry['rows']:,} rows, {entry['samples']:,} "
        f"samples, {entry['verdicts']} verdicts, {entry['plot_points']:,} plot points per series; "
        f"process peak {peak:,.0f} MB"
    )


if __name__ == "__main__":
    main()
