"""Re-make c-flush-each-commit-mariadb-3m.log: the demo's second solution of the same workload
as c-small-pool-mariadb-3m.log (made by make_small_pool_log.py), for the host board to rank two
solutions: the same 3,000,000 rows, 128 MB buffer pool and seed, on a private MariaDB server
(runner/servers.py), but with innodb_flush_log_at_trx_commit=1, so every commit (every 1,000
rows) waits for its redo log to reach the disk, where the first solution's (2) leaves it to
the OS once a second. About 4 to 5 minutes on the quiet VM; make it on a quiet machine (a claim
made under load has a slower in-memory phase than its setup gives, and quiet reruns do not
reproduce it).

    .venv/bin/python scripts/demo_logs/make_flush_each_commit_log.py   (after `make -C runner/iibench`)
"""

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.scaling import describe, load, run_benchmark  # noqa: E402

SETTINGS = {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "1"}
ROWS = 3_000_000
LOG = ROOT / "submissions" / "demo_logs" / "c-flush-each-commit-mariadb-3m.log"

if __name__ == "__main__":
    base_dir = tempfile.mkdtemp(prefix="fc-")  # the system temp dir: sockets want a short path
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    LOG.unlink(missing_ok=True)
    print(f"before: {load()}", flush=True)
    try:
        curve = run_benchmark("mariadb", SETTINGS, ROWS, base_dir, keep=LOG)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    LOG.with_suffix(".wall").unlink()
    print(f"{LOG.name}: {describe(curve)}; after: {load()}")
