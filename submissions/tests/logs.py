"""Builds iiBench logs for tests, in the formats real implementations print."""

import gzip


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
