"""The deltas' rules without a database (submissions/opendata/deltas.py): a CSV's rows found
where a cell holds quotes, commas and new lines; the deltas kept few as a binary counter keeps
its digits; a part written whole once its deltas replace an eighth of it; a part's live rows
cut from its files in id order."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.csv as pa_csv

from submissions.opendata import deltas


def csv_rows(ids: list[int], texts: list[str]) -> tuple[bytes, deltas.RowIndex]:
    """A CSV of (id, text) rows written as the builds write theirs, and its row index."""
    header = b'"id","text"\n'
    counter = deltas.RowCounter(len(header))
    sink = io.BytesIO()
    table = pa.table({"id": ids, "text": texts})
    pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=False))
    counter.add(sink.getvalue(), ids, [1] * len(ids), [0] * len(ids))
    return header + sink.getvalue(), counter.index()


def test_a_row_ends_at_a_new_line_outside_quotes():
    texts = ["plain", 'a "quoted" word,\nand a new line', '=SUM(1)\n\n"', "last"]
    body, index = csv_rows([4, 5, 6, 7], texts)
    cut = [body[start:end] for start, end in zip(index.starts(), index.ends, strict=True)]
    assert b"".join(cut) == body[index.header :]
    for row, text in zip(cut, texts, strict=True):
        assert pa_csv.read_csv(io.BytesIO(b'"id","text"\n' + row))["text"].to_pylist() == [text]


def test_the_deltas_merge_as_a_binary_counter_and_the_part_is_compacted_at_an_eighth():
    served: list[dict] = []
    sizes = []
    for entry in range(1, 8):
        plan = deltas.plan(served, {entry}, base_rows=1000)
        served = [*served[: plan.keep], {"replaces": sorted(plan.replaces)}]
        sizes.append([len(delta["replaces"]) for delta in served])
    assert sizes == [[1], [2], [2, 1], [4], [4, 1], [4, 2], [4, 2, 1]]
    assert deltas.plan([], {1, 2}, base_rows=16).whole is False
    assert deltas.plan([{"replaces": [1, 2]}], {3}, base_rows=16).whole is True  # 3 > 16/8


def test_a_part_s_live_rows_in_id_order_with_its_deltas_applied():
    base_body, base = csv_rows([1, 2, 3, 4], ["one", "two", "three", "four"])
    delta_body, delta = csv_rows([2, 9], ["two again", "nine"])
    replaces = [frozenset(), frozenset({2, 3, 9})]  # 3 deleted
    bodies = [base_body, delta_body]
    ranges = deltas.byte_ranges([base, delta], replaces)
    read = b"".join(bodies[file][start:end] for file, start, end in ranges)
    table = pa_csv.read_csv(io.BytesIO(b'"id","text"\n' + read))
    assert table.to_pylist() == [
        {"id": 1, "text": "one"},
        {"id": 2, "text": "two again"},
        {"id": 4, "text": "four"},
        {"id": 9, "text": "nine"},
    ]
    tally = deltas.tally([base, delta], replaces)
    assert (tally.entries, tally.csv_bytes) == (4, len(read))
