"""SIGTERM and SIGINT stop the run after its current batch, with a last
report and a "stopped" summary (the rerun worker cancels runs this way)."""

from __future__ import annotations

import signal
import subprocess

import pytest
from iibench_output import parse

from conftest import BINARY, Database, check_sanitizers


def stop_after_first_report(db: Database, sig: int) -> tuple[int, str]:
    proc = subprocess.Popen(
        [
            str(BINARY),
            "--db",
            db.url,
            "--rows",
            "100000000",
            "--max-rate",
            "10000",
            "--report-every",
            "3000",
            "--query-threads",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("3000\t"):
            break
    proc.send_signal(sig)
    rest, stderr = proc.communicate(timeout=60)
    check_sanitizers(stderr)
    return proc.returncode, "".join(seen) + rest


@pytest.mark.parametrize("sig,name", [(signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT")])
def test_a_signal_stops_the_run_cleanly(db: Database, sig: int, name: str) -> None:
    returncode, stdout = stop_after_first_report(db, sig)
    out = parse(stdout)

    assert returncode == 0
    assert out.summary["status"] == "stopped"
    assert out.summary["reason"] == name
    rows = int(out.summary["rows"])
    assert out.reports[-1].rows == rows
    assert float(out.summary["seconds"]) == out.reports[-1].seconds
    assert int(out.summary["queries"]) == out.reports[-1].queries
    assert db.scalar("SELECT COUNT(*) FROM mypurchases") == rows
    assert rows % 1000 == 0  # whole batches only
    assert out.lines[-1].startswith(f"# summary status=stopped reason={name} ")
