"""Builds iiBench logs for tests, in the formats real implementations print."""

import contextlib
import gzip
import io
import random
from collections.abc import Iterator
from pathlib import Path

from submissions.logparse import ParsedLog, parse_log


def python_log(
    rows: int = 5_000_000,
    every: int = 1_000_000,
    rates: list[float] | None = None,
    trailer: bool = True,
) -> bytes:
    """A Python-iibench log of the 2009-04 to 2019 layout, where `#seconds` is the interval.
    `rates` gives each interval's rows/s; by default the rate falls as the table grows."""
    reports = rows // every
    rates = rates or [100_000 / (1 + i) for i in range(reports)]
    lines = ["#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps"]
    total = 0.0
    for i in range(reports):
        interval = every / rates[i]
        total += interval
        done = (i + 1) * every
        lines.append(
            f"{done} {interval:.1f} {total:.1f} {done / total:.1f} {done} {every / interval:.1f} 0 0.0 0.0"
        )
    if trailer:
        lines.append(
            f"Totals: {total:.1f} secs, {reports * every / total:.1f} rows/sec, {reports * every} rows"
        )
        lines.append("Done")
    return ("\n".join(lines) + "\n").encode()


def gzipped(data: bytes) -> bytes:
    return gzip.compress(data)


def c_log(
    rows: int = 5_000_000,
    every: int = 1_000_000,
    rows_per_commit: int = 1_000,
    rows_per_insert: int = 1_000,
    server: str = "5.1.25-rc",
    rate: float = 50_000.0,
) -> bytes:
    """A log in the bundled C benchmark's format (runner/iibench/FORMAT.md), line 5 holding
    rows_per_commit."""
    header = [
        "# iibench-c version=1.0.0 format=1",
        "# command iibench --db mysql://root@127.0.0.1:3306/iibench",
        "# param mode=insert",
        f"# param rows={rows}",
        f"# param rows_per_commit={rows_per_commit}",
        f"# param rows_per_insert={rows_per_insert}",
        f"# param report_every={every}",
        "# param max_rate=0",
        "# param seed=42",
        "# param engine=InnoDB",
        "# backend mysql",
        f"# server {server}",
        "# table mypurchases",
        "# index PRIMARY columns=transactionid unique=yes created=before_load",
        "# index marketsegment columns=price,customerid unique=no created=before_load",
        "# index registersegment columns=cashregisterid,price,customerid unique=no created=before_load",
        "# index pdc columns=price,dateandtime,customerid unique=no created=before_load",
        "# started 2026-11-20T22:40:01Z",
        "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries\tinterval_qps",
    ]
    lines = list(header)
    seconds = 0.0
    for done in range(every, rows + 1, every):
        seconds += every / rate
        lines.append(f"{done}\t{seconds:.3f}\t{rate:.1f}\t{done / seconds:.1f}\t0\t0.0\t0\t0.0")
    lines.append("# flushed tables in 0.021 s")
    lines.append(
        f"# summary status=completed rows={rows} seconds={seconds:.3f} "
        f"average_ips={rows / seconds:.1f} deleted=0 queries=0"
    )
    return ("\n".join(lines) + "\n").encode()


def c_fifo_log(
    rows: int = 500_000,
    every: int = 5_000,
    delete_after: int = 250_000,
    deletes_from: int | None = None,
    pace: float = 1.0,
    rate: float = 50_000.0,
    delete_rate: float = 20_000.0,
    qps: float = 0.0,
    state_delete_after: bool = True,
) -> bytes:
    """A C benchmark FIFO run: inserts at `rate` until `delete_after` rows (or `deletes_from`
    when deletes start elsewhere), then at `delete_rate` with `pace` rows deleted per row
    inserted; `qps` queries per second in every interval."""
    deletes_from = delete_after if deletes_from is None else deletes_from
    lines = [
        "# iibench-c version=1.0.0 format=1",
        f"# command iibench --db sqlite:///fifo.db --rows {rows} --delete-after {delete_after}",
        "# param mode=insert",
        f"# param rows={rows}",
        "# param rows_per_commit=1000",
        "# param rows_per_insert=1000",
        f"# param report_every={every}",
        "# param max_rate=0",
        "# param pk=autoinc",
        "# param query_threads=1",
    ]
    if state_delete_after:
        lines.append(f"# param delete_after={delete_after}")
    lines += [
        "# backend sqlite",
        "# server 3.40.1",
        "# table mypurchases",
        "# index PRIMARY columns=transactionid unique=yes created=before_load",
        "# index marketsegment columns=price,customerid unique=no created=before_load",
        "# started 2026-11-20T22:40:01Z",
        "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries\tinterval_qps",
    ]
    seconds = 0.0
    queries = 0
    for done in range(every, rows + 1, every):
        interval_rate = rate if done <= deletes_from else delete_rate
        interval = every / interval_rate
        seconds += interval
        deleted = int(max(done - deletes_from, 0) * pace)
        dps = interval_rate * pace if deleted else 0.0
        queries += int(qps * interval)
        lines.append(
            f"{done}\t{seconds:.3f}\t{every / interval:.1f}\t{done / seconds:.1f}\t{deleted}"
            f"\t{dps:.1f}\t{queries}\t{qps:.1f}"
        )
    lines.append(
        f"# summary status=completed rows={rows} seconds={seconds:.3f} "
        f"average_ips={rows / seconds:.1f} deleted={deleted} queries={queries}"
    )
    return ("\n".join(lines) + "\n").encode()


def c_query_log(points: list[tuple[int, float]], every: int = 50_000) -> bytes:
    """A C benchmark run with a query thread: `points` are (rows, queries per second) for each
    report, inserting at 50,000 rows/s."""
    lines = [
        "# iibench-c version=1.0.0 format=1",
        "# param mode=insert",
        f"# param rows={points[-1][0]}",
        "# param rows_per_commit=1000",
        "# param rows_per_insert=1000",
        f"# param report_every={every}",
        "# param query_threads=1",
        "# backend mysql",
        "# server 10.11.19-MariaDB",
        "# index PRIMARY columns=transactionid unique=yes created=before_load",
        "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries\tinterval_qps",
    ]
    seconds, queries = 0.0, 0
    for done, qps in points:
        seconds += every / 50_000
        queries += int(qps * every / 50_000)
        lines.append(
            f"{done}\t{seconds:.3f}\t50000.0\t{done / seconds:.1f}\t0\t0.0\t{queries}\t{qps:.1f}"
        )
    lines.append(
        f"# summary status=completed rows={points[-1][0]} seconds={seconds:.3f} "
        f"average_ips={points[-1][0] / seconds:.1f} deleted=0 queries={queries}"
    )
    return ("\n".join(lines) + "\n").encode()


def c_pk_run(
    pk: str, seconds: float, rows: int = 100_000, readers: int = 4, scans: int = 400
) -> bytes:
    """One C benchmark run with `--pk`: `rows` in `seconds`, `scans` range scans by readers."""
    lines = [
        "# iibench-c version=1.0.0 format=1",
        f"# command iibench --pk {pk} --rows {rows} --writers 2 --readers {readers}",
        "# param mode=insert",
        f"# param rows={rows}",
        "# param rows_per_commit=1000",
        "# param rows_per_insert=1000",
        f"# param report_every={rows}",
        f"# param pk={pk}",
        "# param writers=2",
        f"# param readers={readers}",
        "# backend mysql",
        "# server 10.11.19-MariaDB",
        "# index PRIMARY columns=transactionid unique=yes created=before_load",
        "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries\tinterval_qps",
        f"{rows}\t{seconds:.3f}\t{rows / seconds:.1f}\t{rows / seconds:.1f}\t0\t0.0\t{scans}"
        f"\t{scans / seconds:.1f}",
        f"# summary status=completed rows={rows} seconds={seconds:.3f} "
        f"average_ips={rows / seconds:.1f} deleted=0 queries={scans}",
    ]
    return ("\n".join(lines) + "\n").encode()


def c_load_log(
    keys: int = 4,
    row_length: int = 64,
    rows: int = 200_000,
    seconds: float = 2.0,
    created: str = "before_load",
    listed_keys: int | None = None,
) -> bytes:
    """The summary of `iibench load`, with `listed_keys` index lines (default: one per key)."""
    listed = keys if listed_keys is None else listed_keys
    data_bytes = rows * (row_length + 1)
    lines = [
        "# iibench-c version=1.0.0 format=1",
        f"# command iibench load --keys {keys} --row-length {row_length} --rows {rows}",
        "# param mode=load",
        f"# param keys={keys}",
        f"# param row_length={row_length}",
        f"# param rows={rows}",
        "# backend mysql",
        "# server 10.11.19-MariaDB",
        "# table load_table",
        "# index PRIMARY columns=val0 unique=yes created=before_load",
        *(
            f"# index valkey{k} columns=val{k} unique=no created={created}"
            for k in range(1, listed)
        ),
        f"# summary status=completed mode=load rows={rows} keys={keys} row_length={row_length} "
        f"seconds={seconds:.3f} rows_per_s={rows / seconds:.1f} "
        f"kv_pairs_per_s={rows * keys / seconds:.1f} mb_per_s={data_bytes / 1e6 / seconds:.1f}",
    ]
    return ("\n".join(lines) + "\n").encode()


METRICS_RUN = """Starting {name}...

{name} took ==================> {minutes} min
3/27/16 2:41:19 PM =============================================================

-- Counters --------------------------------------------------------------------
{name}-counter
             count = {rows}

-- Meters ----------------------------------------------------------------------
{name}-reads
             count = {reads}
         mean rate = {read_rate} events/second
     1-minute rate = 7.26 events/second
     5-minute rate = 161.00 events/second
    15-minute rate = 490.35 events/second
{name}-writes
             count = {batches}
         mean rate = 0.86 events/second
     1-minute rate = 0.53 events/second
     5-minute rate = 0.99 events/second
    15-minute rate = 1.45 events/second

"""


def metrics_console_log(*runs: tuple[str, float, int, float], batches: int = 500) -> bytes:
    """Seed 004's metrics console: each run is (NAME, minutes, rows, mean read rate)."""
    text = "".join(
        METRICS_RUN.format(
            name=name,
            minutes=minutes,
            rows=rows,
            reads=int(read_rate * minutes * 60),
            read_rate=read_rate,
            batches=batches,
        )
        for name, minutes, rows, read_rate in runs
    )
    return text.encode()


def c_log_faster(log: bytes, factor: float) -> bytes:
    """A C benchmark log (runner/iibench/FORMAT.md) with every time divided by `factor` and
    every rate multiplied by it, its arithmetic kept consistent (the careless fake: the cost
    columns, CPU seconds and device counts per interval, are left as the run measured them)."""
    out = []
    columns: list[str] | None = None
    for text in log.decode().splitlines():
        if text.startswith("# summary"):
            words = []
            for word in text.split(" "):
                key, _, value = word.partition("=")
                if key == "seconds":
                    word = f"seconds={float(value) / factor:.3f}"
                elif key == "average_ips":
                    word = f"average_ips={float(value) * factor:.1f}"
                words.append(word)
            out.append(" ".join(words))
        elif text.startswith("rows\t"):
            columns = text.split("\t")
            out.append(text)
        elif columns and text[:1].isdigit():
            cells = dict(zip(columns, text.split("\t"), strict=True))
            seconds = float(cells["seconds"]) / factor
            cells["seconds"] = f"{seconds:.3f}"
            for rate in ("interval_ips", "interval_dps", "interval_qps"):
                cells[rate] = f"{float(cells[rate]) * factor:.1f}"
            cells["cumulative_ips"] = f"{int(cells['rows']) / seconds:.1f}" if seconds else "0.0"
            out.append("\t".join(cells[name] for name in columns))
        else:
            out.append(text)
    return ("\n".join(out) + "\n").encode()


SHARED_MARIADB = ("127.0.0.1", 3306)


@contextlib.contextmanager
def shared_mariadb_database(database: str) -> Iterator[str]:
    """A database of the test's own on the shared MariaDB, made empty and dropped after: the
    benchmark's --db URL for it."""
    import pymysql

    host, port = SHARED_MARIADB

    def admin(sql: str) -> None:
        with (
            contextlib.closing(
                pymysql.connect(host=host, port=port, user="root", autocommit=True)
            ) as connection,
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)

    admin(f"DROP DATABASE IF EXISTS `{database}`")
    admin(f"CREATE DATABASE `{database}`")
    try:
        yield f"mysql://root@{host}:{port}/{database}"
    finally:
        admin(f"DROP DATABASE IF EXISTS `{database}`")


def c_log_made_here(
    binary: str, *, database: str, rows: int = 300_000, every: int = 100_000, extra=()
) -> bytes:
    """A real run of the bundled C benchmark (InnoDB) against the shared MariaDB, in a database
    of its own that is dropped after: its log, with this machine's `# machine` lines and cost
    columns. A few seconds for the default rows. A report every 100,000 rows keeps an interval
    long enough to judge (physics.MIN_SECONDS) on a quiet machine even with its times divided
    by 3: at 50,000 rows this machine's intervals took 0.45 s, a third of that too short."""
    import subprocess

    with shared_mariadb_database(database) as url:
        done = subprocess.run(
            [binary, "--db", url, "--rows", str(rows), "--report-every", str(every),
             "--seed", "5", *extra],
            capture_output=True, timeout=600, check=False,
        )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"the C benchmark failed: {done.stderr.decode()[-500:]}")
    return done.stdout


MARIADB_100K = (
    Path(__file__).resolve().parent.parent
    / "submissions/tests/fixtures/logs/iibench-c-mariadb-100k-cadence.log"
)


def c_mariadb_head_and_reports(count: int) -> tuple[str, list[str]]:
    """A C benchmark run on MariaDB as it streams: the log's header (its ~700 `# setting`
    lines) and first report, then `count` reports more made from it (growing rows and
    seconds, varying rates and costs, `read_bytes` unmeasured ("-") every fifth report)."""
    lines = MARIADB_100K.read_text().splitlines()
    first = next(index for index, line in enumerate(lines) if line[:1].isdigit())
    template = lines[first].split("\t")
    reports = []
    for number in range(2, count + 2):
        fields = [str(number * 100_000), f"{number * 0.731:.3f}", f"{150_000 / number:.1f}"]
        fields += [f"{140_000 - number:.1f}", *template[4:]]
        fields[8] = f"{5 + number / 7:.3f}"
        fields[14] = "-" if number % 5 == 0 else str(4096 * number)
        reports.append("\t".join(fields))
    return "\n".join(lines[: first + 1]) + "\n", reports


HEADER_2023 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q\n"
)


class GeneratedLog(io.RawIOBase):
    """A file object whose bytes come from a generator: the log never exists whole."""

    def __init__(self, chunks):
        self.chunks = iter(chunks)
        self.pending = b""
        self.largest_read = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            self.pending = next(self.chunks, b"")
            if not self.pending:
                return 0
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        self.largest_read = max(self.largest_read, size)
        return size


# The 2023 Python iibench's column header as one line, without its newline.
HEADER_2023_COLUMNS = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)


def python_2023(
    count: int, *, seed: int, stall_every: int = 0, deletes_from: int = -1, queries: bool = True
) -> str:
    rng = random.Random(seed)
    lines, rows, deleted, queries, elapsed = [HEADER_2023_COLUMNS], 0, 0, 0, 0.0
    for i in range(count):
        interval = 10.0 + rng.random()
        elapsed += interval
        stalled = stall_every and i % stall_every == 0
        new_rows = 0 if stalled else rng.randrange(1, 90_000)
        rows += new_rows
        dps = rng.randrange(1, 900) if 0 <= deletes_from <= i else 0
        deleted += dps * 10
        qps = rng.randrange(0, 50) if queries and i > count // 3 else 0
        queries += qps * 10
        lines.append(
            f"{interval:.1f}\t{elapsed:.1f}\t{new_rows / interval:.0f}\t{rows / elapsed:.1f}\t"
            f"{dps}\t{deleted / elapsed:.0f}\t{qps}\t{queries / elapsed:.0f}\t1\t2\t3\t"
            f"{rows}\t{deleted}\t{queries}\t0\t0\t0"
        )
    lines.append(f"Totals: {elapsed:.1f} secs, {rows / elapsed:.1f} rows/sec, {rows} rows, 0 0 0")
    return "\n".join(lines) + "\n"


# The real logs the parser's tests read (submissions/tests/fixtures/logs).
FIXTURES = Path(__file__).resolve().parents[1] / "submissions" / "tests" / "fixtures" / "logs"


def parse_fixture(name: str, **options) -> ParsedLog:
    with (FIXTURES / name).open("rb") as source:
        return parse_log(source, **options)


def parse_text(text: str | bytes, **options) -> ParsedLog:
    data = text.encode() if isinstance(text, str) else text
    return parse_log(io.BytesIO(data), **options)


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


# Where the benches and the tests keep the long logs they make once (var/bench/).
BENCH_LOGS = Path(__file__).resolve().parents[1] / "var" / "bench"
LONG_RUN_HEADER = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)


def long_python_log(path: Path, lines: int) -> None:
    """A long Python iibench run (2023 format) reported every 10 s: the insert rate sags as the
    table grows (bench/parse_speed.py times the parser on it; the hostile tests upload it)."""
    rng = random.Random(42)
    inserted = deleted = queries = 0
    elapsed = 0.0
    with path.open("w") as out:
        out.write(LONG_RUN_HEADER + "\n")
        for i in range(lines):
            interval = 10.0 + rng.random() / 10
            elapsed += interval
            ips = max(200.0, 90_000.0 / (1 + i / 20_000)) * (0.9 + rng.random() / 5)
            new_rows = int(ips * interval)
            inserted += new_rows
            dps = ips if i > lines // 2 else 0.0
            deleted += int(dps * interval)
            qps = 400 + rng.random() * 50
            queries += int(qps * interval)
            out.write(
                f"{interval:.1f}\t{elapsed:.1f}\t{ips:.0f}\t{inserted / elapsed:.0f}\t"
                f"{dps:.0f}\t{deleted / elapsed:.0f}\t{qps:.0f}\t{queries / elapsed:.0f}\t"
                f"{rng.randrange(2000, 90000)}\t{rng.randrange(0, 9000)}\t"
                f"{rng.randrange(500, 50000)}\t{inserted}\t{deleted}\t{queries}\t0\t0\t0\n"
            )
        out.write(f"Totals: {elapsed:.1f} secs, {inserted / elapsed:.1f} rows/sec, ")
        out.write(f"{inserted} rows, 0 0 0 insert-delete-query retry\nDone\n")
