"""The columnar fast path and the per-line path read every log to the same ParsedLog.

Every fixture, every demo log and generated hold-out-like logs (stalls, deletes starting in
the middle of a block, noise, a cut-off last line, an edited number, CRLF, gzip) are parsed
twice: as uploaded, and with the fast path switched off. Small blocks make most blocks plain
reports, so the fast path takes them; the test checks that it did. A parser change that one
path follows and the other does not (a new column, a new rule) fails here.
"""

from __future__ import annotations

import gzip
import io
import random
from pathlib import Path

import pytest

from submissions.logparse import LogError, columnar, parse_log
from submissions.logparse import reader as reader_module

from .conftest import FIXTURES

DEMO_LOGS = Path(__file__).resolve().parents[2] / "demo_logs"
HEADER_2023 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
    "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q"
)
HEADER_2020_09 = (
    "i_sec\tt_sec\ti_ips\tt_ips\ti_qps\tt_qps\tmax_i\tmax_q\tt_ins\tt_query\tretry_i\tretry_q"
)
C_HEADER = (
    "# iibench-c version=1.0 format=1\n# param rows=1000000\n# param report_every=1000\n"
    "# backend mysql\nrows\tseconds\tinterval_ips\tcumulative_ips\tdeleted\tinterval_dps"
    "\tqueries\tinterval_qps"
)


def python_2023(
    count: int, *, seed: int, stall_every: int = 0, deletes_from: int = -1, queries: bool = True
) -> str:
    rng = random.Random(seed)
    lines, rows, deleted, queries, elapsed = [HEADER_2023], 0, 0, 0, 0.0
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
    }
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
    """The ParsedLog, or the error as people see it."""
    try:
        return parse_log(io.BytesIO(data))
    except LogError as error:
        return ("error", str(error), error.line)


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
    parsed = outcome(CORPUS["generated/2023-deletes-mid-block"])
    # The header's block and the Totals line's block are cut around those lines.
    assert sum(fast_blocks) == len(parsed.series)
    fast_blocks.clear()
    parsed = outcome(CORPUS["generated/2023-noise"])
    assert sum(fast_blocks) > 0.9 * len(parsed.series)


@pytest.mark.parametrize("block_bytes", [4096, 1 << 20])
def test_a_log_with_more_reports_than_kept_is_refused_naming_the_limit(block_bytes, monkeypatch):
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", block_bytes)
    data = python_2023(3000, seed=8).encode()
    assert len(parse_log(io.BytesIO(data), max_reports=3000).series) == 3000
    with pytest.raises(LogError) as refused:
        parse_log(io.BytesIO(data), max_reports=1000)
    assert "more than 1,000 report lines" in str(refused.value)
    assert refused.value.line == 1002  # the 1,001st report; line 1 is the header
