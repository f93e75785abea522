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
