"""The command line: --help documents every option, --version the build."""

from __future__ import annotations

import pytest

from conftest import run_iibench

OPTIONS = [
    "--db",
    "--engine",
    "--rows",
    "--rows-per-commit",
    "--rows-per-insert",
    "--report-every",
    "--max-rate",
    "--seed",
    "--start-time",
    "--delete-after",
    "--query-threads",
    "--pk",
    "--writers",
    "--readers",
    "--reader-pause-ms",
    "--keys",
    "--row-length",
    "--out",
    "--help",
    "--version",
    "loadgen",
    "load",
]


@pytest.mark.parametrize("option", OPTIONS)
def test_help_documents_every_option(option: str) -> None:
    assert option in run_iibench("--help").stdout


def test_help_says_the_table_is_dropped() -> None:
    assert "DROPPED" in run_iibench("--help").stdout


def test_version_names_the_backends_of_this_build() -> None:
    out = run_iibench("--version").stdout

    assert out.startswith("iibench-c version=1.2.0 format=3 backends=sqlite")


@pytest.mark.server
def test_this_build_has_the_server_backends() -> None:
    """The set-up installs libmariadb-dev and libpq-dev, so both must be in."""
    assert "backends=sqlite,mysql,postgresql" in run_iibench("--version").stdout
