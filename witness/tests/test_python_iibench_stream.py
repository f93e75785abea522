"""Issue 42: today's Python iibench (mdcallag/mytools bench/ibench/iibench.py), streamed through
the witness client against the real site, is judged by the command line the client ran.

The client is not part of this repository (its code is not copied here): the test runs only
when IIBENCH_PY names a copy of it and IIBENCH_PYTHON a Python with MySQLdb (mysqlclient), as
scripts/demo_logs/make_python_client_logs.sh describes; it is skipped otherwise. The same
verdicts on the same kind of runs, sent through the live API, are asserted in every run of the
suite (submissions/live/tests/test_streamed_commands.py)."""

from __future__ import annotations

import os

import pytest

from testing.logs import shared_mariadb_database
from testing.witness_rig import run_client, streaming_contest, the_run, this_machine, witness_token

pytestmark = pytest.mark.django_db(transaction=True)

CLIENT = os.environ.get("IIBENCH_PY", "")
PYTHON = os.environ.get("IIBENCH_PYTHON", "python3")
SOCKET = os.environ.get("IIBENCH_MYSQL_SOCKET", "/run/mysqld/mysqld.sock")
VARIANTS = {
    "setup-only": (["--setup"], "fail"),
    "secondary-at-start": (["--setup", "--secondary_at_start"], "pass"),
    "secondary-at-end": (["--setup", "--secondary_at_end"], "fail"),
}


@pytest.mark.skipif(not CLIENT, reason="IIBENCH_PY does not name today's Python iibench")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_streamed_python_run_is_judged_by_its_command_line(
    live_site, tmp_path, declared, variant
):
    flags, expected = VARIANTS[variant]
    contest = streaming_contest(target_rows=100_000, report_every_rows=1_000_000)
    _, key = witness_token(contest)
    setup = {**this_machine(declared), "server_family": "mariadb", "storage_engine": "InnoDB"}
    database = f"iibench_clients_w_{os.getpid()}"
    with shared_mariadb_database(database) as url:
        setup["server_version"] = "10.11"
        command = [
            PYTHON, CLIENT, "--dbms=mysql", f"--db_socket={SOCKET}", "--db_user=root",
            f"--db_name={database}", "--engine=innodb", "--num_secondary_indexes=3",
            "--rows_per_commit=1000", "--secs_per_report=1", "--max_rows=100000", *flags,
        ]  # fmt: skip
        done = run_client(
            registry=live_site.url, key=key, contest=contest, declared=setup,
            tmp_path=tmp_path, command=command, options=("--db", url),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    run = the_run(contest)
    assert " ".join(flags) in run.command
    indexes = next(v for v in run.submission.verdicts if v["rule"] == "indexes_from_start")
    assert indexes["status"] == expected, indexes["message"]
    assert run.witnessed  # streamed: the clock agreed
    version = next(v for v in run.seal_verdicts if v["rule"] == "server_version_witnessed")
    assert version["status"] == "pass", version["message"]
