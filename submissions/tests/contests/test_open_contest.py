"""Issue 30, point 2: the demo's open contest keeps the 2008 caps and accepts any current server.
A newcomer's real MariaDB run on a small VM fails only the rules it truly breaks."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.files import File
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from submissions.contests.rules import RULES_BY_ID, RuleSet
from submissions.entries import services
from submissions.entries.demo import CONTEST_OPEN, demo_load
from submissions.models import Contest, Recheck, RuleVersion
from testing.logs import FIXTURES

pytestmark = pytest.mark.django_db

# A 2-core, 24 GB VM with one virtual disk, as a newcomer has it.
NEWCOMER = {
    "entrant_name": "A newcomer",
    "email": "newcomer@example.org",
    "publish": True,
    "cpu_model": "virtual",
    "sockets": 1,
    "cores": 2,
    "cpu_ghz": 2.4,
    "memory_gb": 24,
    "drives": 1,
    "drive_kind": "ssd",
    "raid_level": "",
    "direct_attached": False,
    "os": "Debian 12",
    "server_family": "mariadb",
    "server_version": "10.11.19-MariaDB",
    "storage_engine": "InnoDB",
    "storage_engine_version": "",
    "solution_description": "",
    "server_config": "",
}


def newcomer_entry(contest: Contest, **declared):
    user = get_user_model().objects.create_user("newcomer", password="newcomer-pass-1")
    path = FIXTURES / "iibench-c-mariadb-100k-cadence.log"
    with path.open("rb") as handle:
        return services.entry_create(
            contest=contest,
            owner=user,
            declared={**NEWCOMER, **declared},
            log_file=File(handle, name=path.name),
        )


def failed(entry) -> set[str]:
    return {v["rule"] for v in entry.verdicts if v["status"] == "fail"}


def test_a_newcomers_mariadb_run_fails_only_the_rows_and_the_memory_cap():
    demo_load()
    contest = Contest.objects.get(slug="iibench-open")
    entry = newcomer_entry(contest)
    assert failed(entry) == {"target_rows", "memory"}


@pytest.mark.parametrize(
    ("family", "version", "ok"),
    [
        ("mysql", "8.0.36", True),
        ("mysql", "5.1.25-rc", True),
        ("mysql", "5.0.67", False),
        ("percona", "8.0.35-27", True),
        ("mariadb", "11.4.2-MariaDB", True),
        ("mariadb", "5.5.68-MariaDB", False),
        ("postgresql", "16.3", True),
        ("sqlite", "3.40.1", False),
    ],
)
def test_the_open_contest_accepts_any_current_mysql_family_or_postgresql_server(
    family, version, ok
):
    demo_load()
    contest = Contest.objects.get(slug="iibench-open")
    # The declaration alone speaks here: the log's own server line is dropped.
    path = FIXTURES / "iibench-c-mariadb-100k-cadence.log"
    text = "".join(line for line in path.open() if not line.startswith("# server "))
    user = get_user_model().objects.create_user("other", password="other-pass-12")
    entry = services.entry_create(
        contest=contest,
        owner=user,
        declared={**NEWCOMER, "server_family": family, "server_version": version},
        log_file=File(io.BytesIO(text.encode()), name="run.log"),
    )
    verdict = next(v for v in entry.verdicts if v["rule"] == "mysql_version")
    assert (verdict["status"] == "pass") is ok, verdict["message"]


def test_a_sqlite_run_declared_as_mysql_is_named_by_the_server_its_log_ran():
    """The README's first run (the C benchmark on SQLite) declared as MySQL 5.1.25: the log's
    backend names the server whose version it prints."""
    demo_load()
    contest = Contest.objects.get(slug="iibench-open")
    path = FIXTURES / "iibench-c-mariadb-100k-cadence.log"
    text = "".join(
        "# backend sqlite\n" if line.startswith("# backend ") else
        "# server 3.40.1\n" if line.startswith("# server ") else line
        for line in path.open()
    )  # fmt: skip
    user = get_user_model().objects.create_user("lite", password="lite-pass-1234")
    entry = services.entry_create(
        contest=contest,
        owner=user,
        declared={**NEWCOMER, "server_family": "mysql", "server_version": "5.1.25"},
        log_file=File(io.BytesIO(text.encode()), name="run.log"),
    )
    verdict = next(v for v in entry.verdicts if v["rule"] == "mysql_version")
    assert verdict["status"] == "fail"
    assert verdict["message"].startswith("The log shows SQLite 3.40.1;"), verdict["message"]


def test_the_open_contest_page_says_which_servers_and_what_a_small_vm_fails(client):
    demo_load()
    page = client.get("/contests/iibench-open/").content.decode()
    assert "MariaDB 10.x or 11.x" in page
    assert "PostgreSQL" in page
    assert "16 GB memory cap" in page
    rules = RuleSet(
        target_rows=10**9,
        rows_per_commit=1000,
        max_rows_per_insert=1000,
        report_every_rows=10**6,
        required_mysql_version=CONTEST_OPEN["required_mysql_version"],
    )
    assert RULES_BY_ID["mysql_version"].describe(rules) in page.replace("&#x27;", "'")


def test_a_database_loaded_before_moves_its_open_contest_on(transactional_db):
    # The open contest as the demo loaded it before: MySQL 5.1.x only.
    old = {
        **CONTEST_OPEN,
        "required_mysql_version": "5.1",
        "require_direct_attached": True,
        "preferred_os": "CentOS 5",
        "title": "iiBench open: the 2008 rules, no deadline",
    }
    executor = MigrationExecutor(connection)
    executor.migrate([("submissions", "0018_board_version_notify")])
    apps = executor.loader.project_state([("submissions", "0018_board_version_notify")]).apps
    OldContest = apps.get_model("submissions", "Contest")
    # Only what the model had then (later fields, the standard verification scale, came after).
    known = {field.name for field in OldContest._meta.get_fields()}
    OldContest.objects.create(**{k: v for k, v in old.items() if k in known})
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    contest = Contest.objects.get(slug="iibench-open")
    assert contest.required_mysql_version == "5.1+"
    assert contest.require_direct_attached is False
    version = RuleVersion.objects.filter(contest=contest).order_by("-number").first()
    assert version is not None and version.rules["required_mysql_version"] == "5.1+"
    assert not Recheck.objects.filter(contest=contest).exists()  # it has no entries
