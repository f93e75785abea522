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

from pathlib import Path

from make_small_pool_log import ROWS, make_log  # this folder: the first claim's script

SETTINGS = {"innodb_buffer_pool_size": "128M", "innodb_flush_log_at_trx_commit": "1"}
LOG = (
    Path(__file__).resolve().parents[2] / "submissions/demo_logs/c-flush-each-commit-mariadb-3m.log"
)

if __name__ == "__main__":
    make_log(SETTINGS, ROWS, LOG)
