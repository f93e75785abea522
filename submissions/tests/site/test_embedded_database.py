"""Issue 30: `make run`'s embedded default (SQLite) with two jobs writing at once, as a stream
appending its batches and a rerun recording its progress do. Two real processes under the
settings `make run` uses, each a write transaction that reads first, as Django's code does."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

JOB = """
import os, sys, time
import django
django.setup()
from django.db import OperationalError, connection, transaction

who, rounds = sys.argv[1], int(sys.argv[2])
failures = []
for n in range(rounds):
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SELECT COUNT(*) FROM job")
                time.sleep(0.002)
                cursor.execute("INSERT INTO job (who, n) VALUES (%s, %s)", [who, n])
    except OperationalError as error:
        failures.append(str(error))
print(len(failures), failures[:1])
"""


def test_two_jobs_write_the_embedded_database_at_once_without_locking_errors(tmp_path):
    database = tmp_path / "embedded.sqlite3"
    with sqlite3.connect(database) as made:
        # As `make run` leaves it: its migrate (one process, the settings' init_command) turns
        # the file to WAL, which the file keeps. Two processes switching a new file's journal
        # at the same moment is not a race the site ever runs.
        made.execute("PRAGMA journal_mode=WAL")
        made.execute("CREATE TABLE job (id INTEGER PRIMARY KEY, who TEXT, n INTEGER)")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "iibench_site.settings.local",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    rounds = 150
    jobs = [
        subprocess.Popen(
            [sys.executable, "-c", JOB, who, str(rounds)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("stream", "rerun")
    ]
    outputs = [job.communicate(timeout=240) for job in jobs]
    for job, (out, err) in zip(jobs, outputs, strict=True):
        assert job.returncode == 0, err
        assert out.startswith("0 "), out  # no "database is locked"
    with sqlite3.connect(database) as done:
        assert done.execute("SELECT COUNT(*) FROM job").fetchone() == (2 * rounds,)
        assert done.execute("PRAGMA journal_mode").fetchone() == ("wal",)
