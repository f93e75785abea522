"""The columnar fast path and the per-line path read every log to the same ParsedLog.

Every fixture, every demo log and generated hold-out-like logs (stalls, deletes starting in
the middle of a block, noise, a cut-off last line, an edited number, CRLF, gzip) are parsed
twice: as uploaded, and with the fast path switched off. Small blocks make most blocks plain
reports, so the fast path takes them; the test checks that it did. A parser change that one
path follows and the other does not (a new column, a new rule) fails here.
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import math
import random
from pathlib import Path

import pytest

from submissions.logparse import LogError, columnar, parse_log
from submissions.logparse import reader as reader_module
from submissions.logparse.columns import floats
from testing.logs import FIXTURES, python_2023

DEMO_LOGS = Path(__file__).resolve().parents[2] / "demo_logs"
HEADER_2020_09 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_qps\tt_qps\tmax_i\tmax_q\tt_ins\tt_query\tretry_i\tretry_q"
)
C_HEADER = (
    "# iibench-c version=1.0 format=1\n# param rows=1000000\n# param report_every=1000\n"
    "# backend mysql\nrows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps"
    "\tqueries\tinterval_qps"
)


def python_2020_09(count: int, *, seed: int) -> str:
    rng = random.Random(seed)
    lines, rows, queries, elapsed = [HEADER_2020_09], 0, 0, 0.0
    for _ in range(count):
        elapsed += 10.0
        rows += rng.randrange(1, 9000)
        lines.append(
            f"10.0\t{elapsed:.1f}\t500\t{rows / elapsed:.0f}\t0\t0\t1\t0\t{rows}\t{queries}\t0\t0"
        )
    return "\n".join(lines) + "\n"


def python_2009_04(count: int, *, seed: int, header: str = "2009-04") -> str:
    """Space separated, a report every 100,000 rows; #seconds the interval, #total_seconds
    the total (or the 2009-03 columns, #seconds the total)."""
    rng = random.Random(seed)
    lines = [
        "#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps"
        if header == "2009-04"
        else "#rows #seconds cum_ips last_ips #queries cum_qps last_qps"
    ]
    total = 0.0
    for i in range(1, count + 1):
        rows, interval = i * 100_000, 1.0 + rng.random() * 30
        total += interval
        queries = i * 37
        if header == "2009-04":
            lines.append(
                f"{rows} {interval:.0f} {total:.0f} {rows / total:.0f} {rows} "
                f"{100_000 / interval:.0f} {queries} {queries / total:.0f} {37 / interval:.0f}"
            )
        else:
            lines.append(
                f"{rows} {total:.0f} {rows / total:.0f} {100_000 / interval:.0f} {queries} "
                f"{queries / total:.0f} {37 / interval:.0f}"
            )
    lines.append("Done")
    return "\n".join(lines) + "\n"


def java_tsv(count: int, *, seed: int, closing: bool = True) -> str:
    """The TSV file Java iibench writes: a report every 5 s, the closing line without the
    exceptions column."""
    rng = random.Random(seed)
    lines = ["tot_inserts\telap_secs\tcum_ips\tint_ips\tcum_qry_avg\tint_qry_avg\tcum_qpm"
             "\tint_qpm\texceptions"]  # fmt: skip
    rows = 0
    for i in range(1, count + 1):
        new_rows = rng.randrange(1, 400_000)
        rows += new_rows
        lines.append(
            f"{rows}\t{i * 5}\t{rows / (i * 5):.2f}\t{new_rows / 5:.2f}\t0.00\t0.00\t0.00\t0.00\t0"
        )
    if closing:
        lines.append(f"{rows}\t{count * 5}\t{rows / (count * 5):.2f}\t0.00\t0.00\t0.00\t0.00\t0.00")
    return "\n".join(lines) + "\n"


def c_format(count: int, *, seed: int, summary: bool = True) -> str:
    rng = random.Random(seed)
    lines, rows, seconds = [C_HEADER], 0, 0.0
    for i in range(count):
        rows += 1000
        seconds += rng.random()
        queries = i * 7 if i > count // 2 else 0
        lines.append(
            f"{rows}\t{seconds:.3f}\t{1000 / max(seconds, 1e-3):.1f}\t{rows / seconds:.1f}"
            f"\t0\t0.0\t{queries}\t{rng.random() * 100:.2f}"
        )
    if summary:
        lines.append(
            f"# summary status=completed rows={rows} seconds={seconds:.3f} "
            f"average_ips={rows / seconds:.1f}"
        )
    return "\n".join(lines) + "\n"


C_COST_HEADER = (
    "# iibench-c version=1.2.0 format=3\n# param rows=1000000\n# param report_every=1000\n"
    "# backend mysql\n# cost measured=yes server_pid=1 device=8:0 data_dir=/var/lib/mysql\n"
    "rows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps\tqueries"
    "\tinterval_qps\tlatency_p50_ms\tlatency_p99_ms\tlatency_max_ms\tclient_cpu_s"
    "\tserver_cpu_s\tserver_rss_bytes\tread_bytes\twrite_bytes\tread_ops\twrite_ops"
    "\tdb_size_bytes\tmachine_cpu_s"
)


def c_format_costs(count: int, *, seed: int, machine: bool = True) -> str:
    """Formats 2 and 3 (`machine=False`: format 2's nineteen columns): cost cells with "-"
    where a report could not measure (scattered, and a stretch with no latency at all)."""
    rng = random.Random(seed)
    header = C_COST_HEADER if machine else C_COST_HEADER.rsplit("\t", 1)[0]
    if not machine:
        header = header.replace("version=1.2.0 format=3", "version=1.1.0 format=2")
    lines, rows, seconds = [header], 0, 0.0
    for i in range(count):
        rows += 1000
        seconds += rng.random()
        p50 = rng.random() * 10
        costs = [
            f"{p50:.3f}", f"{p50 * 2:.3f}", f"{p50 * 3:.3f}", f"{rng.random():.3f}",
            f"{rng.random() * 4:.3f}", str(rng.randrange(1 << 30)), str(rng.randrange(1 << 20)),
            str(rng.randrange(1 << 24)), str(rng.randrange(300)), str(rng.randrange(900)),
            str(1000 * rows),
        ]  # fmt: skip
        if machine:
            costs.append(f"{rng.random() * 8:.3f}")
        if count // 3 <= i < count // 3 + 40:
            costs[0:3] = ["-", "-", "-"]  # intervals without an INSERT
        for at in range(len(costs)):
            if rng.random() < 0.01:
                costs[at] = "-"
        lines.append(
            f"{rows}\t{seconds:.3f}\t{1000 / max(seconds, 1e-3):.1f}\t{rows / seconds:.1f}"
            f"\t0\t0.0\t0\t0.0\t" + "\t".join(costs)
        )
    lines.append(
        f"# summary status=completed rows={rows} seconds={seconds:.3f} "
        f"average_ips={rows / seconds:.1f}"
    )
    return "\n".join(lines) + "\n"


def with_field(text: str, line: int, at: int, value: str) -> str:
    lines = text.split("\n")
    fields = lines[line - 1].split("\t")
    fields[at] = value
    lines[line - 1] = "\t".join(fields)
    return "\n".join(lines)


def edited(text: str, line: int, old: str, new: str) -> str:
    lines = text.split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "\n".join(lines)


def with_noise(text: str, every: int) -> str:
    lines = text.split("\n")
    for at in range(len(lines) - 2, 1, -every):
        lines.insert(at, "Insert rt: 0.1 0.2 0.3")
    return "\n".join(lines)


def generated() -> dict[str, bytes]:
    big = python_2023(3000, seed=1, deletes_from=1700)
    logs = {
        "2023-deletes-mid-block": big,
        "2023-stalls": python_2023(2000, seed=2, stall_every=7),
        "2023-no-extras": python_2023(1500, seed=3, queries=False),
        "2023-noise": with_noise(big, 97),
        "2023-cut-off": big[: big.rindex("Totals:")] + "10.0\t99",
        "2023-no-totals": big[: big.rindex("Totals:")],
        "2023-edited-number": edited(big, 2500, "\t0\t0\t0", "\t-5\t0\t0"),
        "2023-rows-go-down": edited(big, 2200, "\t1\t2\t3\t", "\t1\t2\t3\t1"),
        "2023-fraction-in-rows": edited(big, 1800, "\t0\t0\t0", ".5\t0\t0\t0"),
        "2023-crlf": big.replace("\n", "\r\n"),
        "2023-blank-lines": big.replace("\t0\t0\t0\n", "\t0\t0\t0\n\n", 50),
        "2020-09": python_2020_09(2500, seed=4),
        "2009-04": python_2009_04(3000, seed=9),
        "2009-04-noise": with_noise(python_2009_04(3000, seed=10), 211),
        "2009-04-two-spaces": python_2009_04(3000, seed=11).replace(" ", "  ", 40),
        "2009-04-time-goes-down": edited(python_2009_04(3000, seed=12), 2000, " 1", " 0"),
        "2009-03": python_2009_04(3000, seed=13, header="2009-03"),
        "java-tsv": java_tsv(3000, seed=14),
        "java-tsv-open": java_tsv(3000, seed=15, closing=False),
        "java-tsv-one-decimal": edited(java_tsv(3000, seed=16), 1500, "\t0.00\t0.00", "\t0.5\t0.0"),
        "java-tsv-short-line-inside": edited(java_tsv(3000, seed=17), 900, "\t0.00\t0", "\t0.00"),
        "c-format": c_format(3000, seed=5),
        "c-format-no-summary": c_format(2000, seed=6, summary=False),
        "c-format-3-costs": c_format_costs(3000, seed=18),
        "c-format-2-costs": c_format_costs(2000, seed=19, machine=False),
    }
    costs = logs["c-format-3-costs"]
    logs["c-format-3-dash-in-a-rate"] = with_field(costs, 2001, 2, "-")
    logs["c-format-3-negative-cost"] = with_field(costs, 1500, -1, "-1.5")
    logs["c-format-3-double-dash"] = costs.replace("\t-\t", "\t--\t", 1)
    java = logs["java-tsv"].split("\n")
    fields = java[1500].split("\t")
    fields[3] = fields[3][:-1]  # int_ips with one decimal: Java's reader groups the dot
    java[1500] = "\t".join(fields)
    logs["java-tsv-rate-one-decimal"] = "\n".join(java)
    c_text = logs["c-format"].split("\n")
    c_text[1500] = c_text[1499]  # a repeated report: the per-line path names it
    logs["c-format-repeated-line"] = "\n".join(c_text)
    encoded = {name: text.encode() for name, text in logs.items()}
    encoded["2023-deletes-mid-block.gz"] = gzip.compress(encoded["2023-deletes-mid-block"])
    return encoded


def corpus() -> dict[str, bytes]:
    found = {f"fixture/{path.name}": path.read_bytes() for path in sorted(FIXTURES.iterdir())}
    found.update(
        {f"demo/{path.name}": path.read_bytes() for path in sorted(DEMO_LOGS.glob("*.log"))}
    )
    found.update({f"generated/{name}": data for name, data in generated().items()})
    return found


CORPUS = corpus()


def outcome(data: bytes):
    """The ParsedLog, or the error as people see it. The series' columns are compared by their
    bytes: an unmeasured cost is NaN, which equals nothing, not even itself. A rate the fast
    path holds as float32 (columns.py) is compared as the float64 everyone reads it as."""
    try:
        parsed = parse_log(io.BytesIO(data))
    except LogError as error:
        return ("error", str(error), error.line)
    series = {
        item.name: None if column is None else as_read(column)
        for item in dataclasses.fields(parsed.series)
        for column in [getattr(parsed.series, item.name)]
    }
    return dataclasses.replace(parsed, series=None), series


def as_read(column) -> tuple[str, bytes]:
    if column.typecode == "f":
        return "d", floats(column).tobytes()
    return column.typecode, column.tobytes()


@pytest.fixture
def fast_blocks(monkeypatch):
    """Counts the blocks the fast path took."""
    taken = []
    read = columnar.read_reports

    def counting(block, **options):
        columns = read(block, **options)
        if columns is not None:
            taken.append(len(block))
        return columns

    monkeypatch.setattr(columnar, "read_reports", counting)
    return taken


@pytest.mark.parametrize("block_bytes", [2048, 1 << 20])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_both_paths_read_every_log_alike(name, block_bytes, monkeypatch, fast_blocks):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", block_bytes)
    data = CORPUS[name]
    fast = outcome(data)
    taken = list(fast_blocks)
    monkeypatch.setattr(columnar, "read_reports", lambda block, **options: None)
    per_line = outcome(data)
    assert fast == per_line
    if block_bytes == 2048 and name.startswith("generated/") and "blank" not in name:
        assert taken, "the fast path took no block of this log"


def test_the_fast_path_takes_every_plain_report(monkeypatch, fast_blocks):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 4096)
    parsed = parse_log(io.BytesIO(CORPUS["generated/2023-deletes-mid-block"]))
    # The header's block and the Totals line's block are cut around those lines.
    assert sum(fast_blocks) == len(parsed.series)
    fast_blocks.clear()
    parsed = parse_log(io.BytesIO(CORPUS["generated/2023-noise"]))
    assert sum(fast_blocks) > 0.9 * len(parsed.series)


@pytest.mark.parametrize("name", ["c-format-3-costs", "c-format-2-costs"])
def test_the_fast_path_takes_the_c_formats_cost_columns_with_their_dashes(
    name, monkeypatch, fast_blocks
):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 4096)
    parsed = parse_log(io.BytesIO(CORPUS[f"generated/{name}"]))
    assert sum(fast_blocks) == len(parsed.series)
    # The stretch without INSERTs is NaN, not 0, and the rest is read.
    latency = parsed.series.latency_p99_ms
    stretch = latency[len(latency) // 3 : len(latency) // 3 + 40]
    assert all(math.isnan(value) for value in stretch)
    assert sum(1 for value in latency if not math.isnan(value)) > 0.9 * len(latency) - 40
    assert (parsed.series.machine_cpu_s is None) == (name == "c-format-2-costs")


@pytest.mark.parametrize("block_bytes", [4096, 1 << 20])
def test_a_log_with_more_reports_than_kept_is_refused_naming_the_limit(block_bytes, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", block_bytes)
    data = python_2023(3000, seed=8).encode()
    assert len(parse_log(io.BytesIO(data), max_reports=3000).series) == 3000
    with pytest.raises(LogError) as refused:
        parse_log(io.BytesIO(data), max_reports=1000)
    assert "more than 1,000 report lines" in str(refused.value)
    assert refused.value.line == 1002  # the 1,001st report; line 1 is the header
