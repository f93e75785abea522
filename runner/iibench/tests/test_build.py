"""The build: backends are compiled only when their client library is there,
and a URL for a missing one is refused with a message."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import HERE, check_sanitizers


def test_a_build_without_mysql_and_postgresql_refuses_their_urls(tmp_path: Path) -> None:
    binary = tmp_path / "iibench-sqlite-only"
    subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(HERE.parent),
            "NO_MYSQL=1",
            "NO_PG=1",
            f"BUILD={tmp_path / 'obj'}",
            f"BIN={binary}",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip().endswith("backends=sqlite")

    for url, library in [
        ("mysql://root@127.0.0.1/x", "libmariadb-dev"),
        ("postgresql://root@127.0.0.1/x", "libpq-dev"),
    ]:
        result = subprocess.run(
            [str(binary), "--db", url], capture_output=True, text=True, check=False
        )
        check_sanitizers(result.stderr)
        assert result.returncode == 2
        assert "built without" in result.stderr
        assert library in result.stderr
