"""Writes the fixtures of issue 30's verdicts (run once; the outputs are committed).

    .venv/bin/python scripts/make_verdict_fixtures.py            # the two simulated logs
    .venv/bin/python scripts/make_verdict_fixtures.py --c-run    # and a real C run on MariaDB

- `java-iibench-truncated-de.tsv`: a simulated jiibench run as its TSV writer prints it in de_DE
  (`%d\\t%d\\t%.2f...`: decimal commas, `elap_secs` = `elapsed / 1000`, whole seconds rounded
  down, the last line without its exceptions column), "Feedback every 1 seconds" with a
  reporter thread that wakes up to 0.95 s late (a busy JVM): the true time of a report is up
  to a second after the printed one, as in the public samples.
- `sysbench-mongodb-load.log`: the console of sysbench-mongodb's loader (jmongosysbenchload),
  written after its print statements: its `Application Parameters` block (collections,
  documents per collection, write concern; no secondary indexes), then the report lines it
  shares with the Java iibench (`%,d inserts : %,d seconds : cum ips=%,.2f : int ips=%,.2f`).
- `iibench-c-mariadb-100k-cadence.log` (`--c-run`): this project's C benchmark, 500,000 rows
  reported every 100,000 rows, against the shared MariaDB (database iibench_h30 unless
  IIBENCH_FIXTURE_DB names another): a real run with its full `# setting` header.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess  # nosec B404 - runs this project's own benchmark binary
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "submissions" / "tests" / "fixtures" / "logs"
IIBENCH = ROOT / "runner" / "iibench" / "iibench"
PREFIX = "Thread[main,5,main]"
REPORTER = "Thread[Thread-1,5,main]"


def de(value: float) -> str:
    """`%.2f` in de_DE: a decimal comma, no grouping."""
    return f"{value:.2f}".replace(".", ",")


def de_grouped(value: float, decimals: int) -> str:
    """`%,.2f` / `%,d` in de_DE: dots group thousands, a comma before the decimals."""
    text = f"{value:,.{decimals}f}"
    return text.replace(",", "\0").replace(".", ",").replace("\0", ".")


def java_tsv() -> str:
    rng = random.Random(30)  # noqa: S311 - a fixed seed for a repeatable fixture
    lines = [
        "tot_inserts\telap_secs\tcum_ips\tint_ips\tcum_qry_avg\tint_qry_avg\tcum_qpm\tint_qpm"
        "\texceptions"
    ]
    rows = last_rows = 0
    ms = last_ms = 0
    for second in range(1, 21):
        # The reporter wakes once a second has passed, late by up to 0.95 s.
        ms = second * 1000 + rng.randint(1, 950)
        rate = 62_000 - 1_400 * second + rng.randint(-3_000, 3_000)
        rows = last_rows + round(rate * (ms - last_ms) / 1000 / 250) * 250
        cum = rows / ms * 1000
        interval = (rows - last_rows) / (ms - last_ms) * 1000
        lines.append(f"{rows}\t{ms // 1000}\t{de(cum)}\t{de(interval)}\t0,00\t0,00\t0,00\t0,00\t0")
        last_rows, last_ms = rows, ms
    # The closing line, printed after the writers stopped: no exceptions column.
    ms += 180
    cum = rows / ms * 1000
    lines.append(f"{rows}\t{ms // 1000}\t{de(cum)}\t{de(0.0)}\t0,00\t0,00\t0,00\t0,00")
    return "\n".join(lines) + "\n"


def sysbench_mongodb_console() -> str:
    collections, per_collection = 16, 10_000_000
    out = [
        "Application Parameters",
        "--------------------------------------------------",
        f"  {collections} collections",
        "  database name = sbtest",
        "  8 writer thread(s)",
        f"  {de_grouped(per_collection, 0)} documents per collection",
        "  Documents Per Insert = 1000",
        "  Feedback every 10 seconds(s)",
        "  Feedback every 0 inserts(s)",
        "  logging to file mongoSysbenchLoad-16-10000000-tokumx.txt.tsv",
        "  write concern = SAFE",
        "  Server:Port = localhost:27017",
        "  Username = ",
        "  index technology = mongo",
        "--------------------------------------------------",
    ]
    out = [PREFIX + line for line in out]
    for writer in range(8):
        out.append(
            f"Thread[Thread-{writer + 2},5,main]Writer thread {writer} : creating "
            f"collection sbtest{writer + 1}"
        )
        out.append(
            f"Thread[Thread-{writer + 2},5,main]Writer thread {writer} : started to "
            f"load collection sbtest{writer + 1}"
        )
    rng = random.Random(31)  # noqa: S311 - a fixed seed for a repeatable fixture
    rows = last = 0
    for report in range(1, 13):
        step = rng.randint(95, 105) * 10_000
        rows += step
        seconds = report * 10
        ms = seconds * 1000 + rng.randint(1, 99)
        out.append(
            f"{REPORTER}{de_grouped(rows, 0)} inserts : {de_grouped(seconds, 0)} seconds : "
            f"cum ips={de_grouped(rows / ms * 1000, 2)} : "
            f"int ips={de_grouped((rows - last) / 10, 2)}"
        )
        last = rows
    out.append(PREFIX + "Done!")
    return "\n".join(out) + "\n"


def c_run() -> str:
    database = os.environ.get("IIBENCH_FIXTURE_DB", "iibench_h30")
    result = subprocess.run(  # noqa: S603 - fixed arguments, our own binary  # nosec B603
        [
            str(IIBENCH),
            "--db",
            f"mysql://root@127.0.0.1:3306/{database}",
            "--rows",
            "500000",
            "--report-every",
            "100000",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c-run", action="store_true", help="also run the C benchmark")
    args = parser.parse_args()
    (OUT / "java-iibench-truncated-de.tsv").write_text(java_tsv())
    (OUT / "sysbench-mongodb-load.log").write_text(sysbench_mongodb_console())
    if args.c_run:
        (OUT / "iibench-c-mariadb-100k-cadence.log").write_text(c_run())


if __name__ == "__main__":
    main()
