"""A bench's own site: a scratch PostgreSQL database (BENCH_DATABASE_URL's name and a suffix,
migrated afresh, dropped after) and gunicorn with the production settings on it, for the upload
benches (bench/upload_speed.py, bench/hostile_uploads.py)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

BENCH_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/iibench_bench"
)
REDIS_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/14")


def scratch_url(suffix: str) -> str:
    """The bench database's URL with its name followed by `suffix`."""
    parts = urlsplit(BENCH_URL)
    return parts._replace(path=parts.path + suffix).geturl()


def use_scratch(url: str) -> None:
    """This process's Django settings point at the scratch database (before django.setup)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "iibench_site.settings.test"
    os.environ["TEST_DATABASE_URL"] = url
    os.environ.setdefault("LOG_LEVEL", "WARNING")


def _admin_execute(url: str, statement: str) -> None:
    import psycopg

    admin_url = urlsplit(url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(statement)


def drop_database(url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    _admin_execute(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_database(url: str) -> None:
    """The scratch database made again and migrated, Django set up on it."""
    drop_database(url)
    _admin_execute(url, f'CREATE DATABASE "{urlsplit(url).path.lstrip("/")}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def serve(folder: Path, *, url: str, workers: int, log_name: str = "gunicorn.log", **settings):
    """gunicorn with the production settings on the scratch database (`settings` added to its
    environment), static files collected once into `folder`."""
    from testing.server import collect_static, production_environment, start_gunicorn

    environment = production_environment(
        database_url=url,
        static_root=folder / "static",
        media_root=folder / "media",
        redis_url=REDIS_URL,
    )
    environment.update(settings)
    if not (folder / "static").exists():
        collect_static(environment)
    return start_gunicorn(environment, folder / log_name, folder / "media", workers=workers)
