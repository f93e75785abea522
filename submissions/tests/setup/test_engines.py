"""Server family + version and a normalised engine. Seen: "InnoDB", "InnoDB plugin" and
"PostgreSQL heap" were three filter values of free text, and PostgreSQL entrants typed their
version into "MySQL version"."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from submissions.entries import services
from submissions.setup.engines import guessed_family, normalised_engine
from testing.entries import upload
from testing.logs import python_log
from testing.pages import board_rows


@pytest.mark.parametrize(
    ("written", "family", "engine"),
    [
        ("InnoDB", "mysql", "InnoDB"),
        ("InnoDB plugin", "mysql", "InnoDB"),
        ("innodb plugin 1.0.1", "mysql", "InnoDB"),
        ("XtraDB", "percona", "InnoDB"),
        ("TokuDB", "mysql", "TokuDB"),
        ("fractal-tree engine", "mysql", "TokuDB"),
        ("PostgreSQL heap", "postgresql", "PostgreSQL heap"),
        ("heap (default)", "postgresql", "PostgreSQL heap"),
        ("SQLite (WAL)", "sqlite", "SQLite"),
        ("", "postgresql", "PostgreSQL heap"),
        ("HEAP", "mysql", "MEMORY"),
        ("Falcon", "mysql", "Falcon"),
    ],
)
def test_the_engine_is_normalised_and_the_text_is_not_touched(written, family, engine):
    assert normalised_engine(written, family) == engine


@pytest.mark.parametrize(
    ("version", "engine", "family"),
    [
        ("5.1.25-rc", "InnoDB", "mysql"),
        ("10.11.19-MariaDB", "InnoDB", "mariadb"),
        ("none (PostgreSQL 15.20)", "PostgreSQL heap", "postgresql"),
        ("none (SQLite 3.40.1)", "SQLite (WAL)", "sqlite"),
        ("5.0.67-percona", "XtraDB", "percona"),
    ],
)
def test_the_migration_guesses_the_family_from_what_was_written(version, engine, family):
    assert guessed_family(version, engine) == family


@pytest.mark.django_db
def test_the_board_filters_by_the_normalised_engine(client, contest, entrant, declared):
    for n, written in enumerate(("InnoDB", "InnoDB plugin", "PostgreSQL heap")):
        family = "postgresql" if "Postgre" in written else "mysql"
        services.entry_create(
            contest=contest,
            owner=entrant,
            declared={**declared, "storage_engine": written, "server_family": family,
                      "server_version": "15.4" if family == "postgresql" else "5.1.25",
                      "entrant_name": f"E{n}"},
            log_file=upload(python_log(rates=[100_000 + n, 90_000, 80_000, 70_000, 60_000])),
        )  # fmt: skip
    page = client.get(contest.get_absolute_url()).content.decode()
    options = page[
        page.index('name="engine"') : page.index("</select>", page.index('name="engine"'))
    ]
    assert options.count(">InnoDB<") == 1 and ">PostgreSQL heap<" in options
    assert "InnoDB plugin<" not in options
    rows = board_rows(client.get(contest.get_absolute_url() + "?engine=InnoDB"))
    assert len(rows) == 2
    entry_page = client.get("/entries/{}/".format(
        contest.submissions.get(storage_engine="InnoDB plugin").pk)).content.decode()  # fmt: skip
    # The text as the entrant wrote it; the engine it is filed under only when not evident.
    assert "InnoDB plugin" in entry_page and "filed under" not in entry_page


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_family_engine_and_the_first_rule_version():
    executor = MigrationExecutor(connection)
    executor.migrate([("submissions", "0006_tracks")])
    apps = executor.loader.project_state([("submissions", "0006_tracks")]).apps
    user = apps.get_model("auth", "User").objects.create(username="old")
    contest = apps.get_model("submissions", "Contest").objects.create(slug="old", title="Old")
    fields = dict(
        contest=contest, owner=user, entrant_name="x", email="x@example.org", cpu_model="x",
        sockets=1, cores=1, cpu_ghz=1, memory_gb=1, drives=1, drive_kind="ssd", os="Debian",
        solution_description="x",
    )  # fmt: skip
    Submission = apps.get_model("submissions", "Submission")
    Submission.objects.create(**fields, mysql_version="none (PostgreSQL 15.20)",
                              storage_engine="PostgreSQL heap", log_sha256="a")  # fmt: skip
    Submission.objects.create(**fields, mysql_version="5.1.25-rc", storage_engine="InnoDB plugin",
                              log_sha256="b")  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    apps = executor.loader.project_state(executor.loader.graph.leaf_nodes()).apps
    migrated = apps.get_model("submissions", "Submission").objects.order_by("log_sha256")
    assert [(e.server_family, e.server_version, e.storage_engine, e.engine) for e in migrated] == [
        ("postgresql", "none (PostgreSQL 15.20)", "PostgreSQL heap", "PostgreSQL heap"),
        ("mysql", "5.1.25-rc", "InnoDB plugin", "InnoDB"),
    ]
    version = apps.get_model("submissions", "RuleVersion").objects.get(contest__slug="old")
    assert version.number == 1 and version.rules["max_memory_gb"] == 16
    recheck = apps.get_model("submissions", "Recheck").objects.get(rule_version=version)
    assert (recheck.status, recheck.total) == ("queued", 2)
