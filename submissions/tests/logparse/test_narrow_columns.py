"""Rates held in 4 bytes where that loses nothing (logparse/columns.py): read back as the very
float64 numbers the per-line path reads, and packed into the very same bytes."""

import io

import pytest

from submissions.logparse import columnar, parse_log, python_iibench
from submissions.logparse import reader as reader_module
from submissions.logparse.columns import Narrow, floats, widen
from submissions.measures.series import pack_columns, series_columns
from testing.logs import python_2023

RATES = ("interval_rate", "cumulative_rate", "interval_delete_rate", "interval_query_rate")


def both_paths(text: str, monkeypatch):
    fast = parse_log(io.BytesIO(text.encode()))
    with monkeypatch.context() as patched:
        patched.setattr(columnar, "read_reports", lambda block, **options: None)
        per_line = parse_log(io.BytesIO(text.encode()))
    return fast.series, per_line.series


def assert_same_numbers(fast, per_line):
    for name in RATES:
        held, read = getattr(fast, name), getattr(per_line, name)
        assert (held is None) == (read is None), name
        if held is not None:
            assert floats(held).tobytes() == floats(read).tobytes(), name
    assert pack_columns(series_columns(fast)) == pack_columns(series_columns(per_line))


def test_whole_number_rates_are_held_in_four_bytes_and_read_as_the_same_float64(monkeypatch):
    # Python iibench prints i_ips and t_dps as whole numbers, t_ips with a decimal.
    fast, per_line = both_paths(python_2023(3000, seed=1, deletes_from=1700), monkeypatch)
    for name in ("interval_rate", "interval_delete_rate"):
        assert isinstance(getattr(fast, name), Narrow), name
        assert getattr(fast, name).itemsize == 4
    assert fast.cumulative_rate.typecode == "d"  # 1234.5 is not exact in a float32
    assert per_line.interval_rate.typecode == "d"
    assert_same_numbers(fast, per_line)


def test_a_rate_a_float32_cannot_hold_keeps_the_column_in_eight_bytes(monkeypatch):
    lines = python_2023(3000, seed=3, queries=False).split("\n")
    fields = lines[2500].split("\t")
    fields[2] = "16777217"  # 2**24 + 1: the first whole number a float32 rounds
    lines[2500] = "\t".join(fields)
    fast, per_line = both_paths("\n".join(lines), monkeypatch)
    assert fast.interval_rate.typecode == "d"
    assert floats(fast.interval_rate)[2499] == 16_777_217.0
    assert_same_numbers(fast, per_line)


def test_reports_read_line_by_line_after_narrowed_blocks_widen_the_column_first(monkeypatch):
    # Small blocks, and blank lines late in the log: the blocks before them go as columns
    # (narrowed), the one holding them line by line (its numbering), the rest as columns.
    monkeypatch.setattr(reader_module, "BLOCK_BYTES", 2048)
    lines = python_2023(3000, seed=2, deletes_from=1000).split("\n")
    for at in (2001, 2003, 2005):
        lines[at] += "\n"
    widened = []

    def watching(series):
        widened.append(isinstance(series.interval_rate, Narrow))
        widen(series)

    monkeypatch.setattr(python_iibench, "widen", watching)
    fast, per_line = both_paths("\n".join(lines), monkeypatch)
    assert widened[0] is True  # it was narrowed when the line-by-line block came
    assert fast.interval_rate.typecode == "d"
    assert_same_numbers(fast, per_line)


def test_a_narrowed_column_refuses_a_float_appended_to_it():
    column = Narrow("f")
    with pytest.raises(TypeError, match="widen the series"):
        column.append(1.5)
