"""Re-make c-myrocks-mariadb-1m.log: the bundled C benchmark, 1,000,000 rows into MyRocks
(`--engine ROCKSDB`) on a private MariaDB server (runner/servers.py: its own data directory,
port and socket, removed at the end) that loads the plugin ha_rocksdb.so (Debian package
mariadb-plugin-rocksdb), started with the settings the demo entry declares: a 128 MB block
cache, the memtables at their default, the log flushed once a second. The entry is in the demo
contest of short runs (`engines-short`, submissions/entries/demo.py), verifiable at 1/10 on the
`mariadb` target, whose engines list ROCKSDB where the plugin is installed. Make it on a quiet
machine: made under load 12 it ran at a quarter of the quiet host's rate.

    .venv/bin/python scripts/demo_logs/make_myrocks_log.py   (after `make -C runner/iibench`)
"""

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.scaling_sweeps import ROCKSDB, describe, run_benchmark  # noqa: E402

# The memtables at MyRocks' default (no total limit: each flushes at 64 MB). With a 64 MB
# total (rocksdb_db_write_buffer_size=64M) the first try's rate halved at 10% of the run, when
# the write buffer manager began forcing flushes, while its 1/10 rerun (6.4 MB) did not fall:
# the judge found no cliff to match (docs/scaling.md "MyRocks").
SETTINGS = {"rocksdb_block_cache_size": "128M", "rocksdb_flush_log_at_trx_commit": "2"}
ROWS = 1_000_000
LOG = ROOT / "submissions" / "demo_logs" / "c-myrocks-mariadb-1m.log"

if __name__ == "__main__":
    base_dir = tempfile.mkdtemp(prefix="mr-")  # the system temp dir: sockets want a short path
    Path(base_dir).chmod(0o755)  # the server runs as its own user and must reach it
    LOG.unlink(missing_ok=True)
    try:
        curve = run_benchmark(ROCKSDB, SETTINGS, ROWS, base_dir, keep=LOG)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)
    LOG.with_suffix(".wall").unlink()
    print(f"{LOG.name}: {describe(curve)}")
