"""The open dataset's parts (pure: no Django). The dataset is cut into fixed ranges of entry
ids, PART_IDS wide: part k holds the published entries whose id is in [k * PART_IDS,
(k + 1) * PART_IDS), with their verdicts and series, each table its own file. Ids never move
between ranges, so an upload, an edit, a deletion or a move to another contest changes the
part holding that entry: no other part is read or written. The entries' ranks are not in the
parts: each public contest has its own ranks file (RANK_TABLES), rewritten when its ranks move.

Which parts changed is read from the change log (models.OpenDataChange, written by database
triggers with every change of an entry, its series and its stream): a part holding the entries
it names gets a delta (deltas.py: the current rows of those entries, in four small files named
by the part and the delta's number) or, when its deltas grow past a share of it, is written
whole again; every other part is kept as it is (its files linked into the new build); a part
with no entry left is dropped."""

from __future__ import annotations

import re

# The tables of a part, in the manifest's order, with what each holds.
TABLES = {
    "entries.parquet": "Entries: declaration, figures, verdict summary, trust, links.",
    "verdicts.parquet": "Ground-rule verdicts of those entries, with their evidence.",
    "series.parquet": "Reports of those entries' logs (rows, seconds, rates, costs).",
    "entries.csv": "The entries as CSV (text a spreadsheet would run as a formula starts with ').",
}


def part_of(entry_id: int, part_ids: int) -> int:
    return entry_id // part_ids


def id_range(part: int, part_ids: int) -> tuple[int, int]:
    """The first and last id a part may hold."""
    return part * part_ids, (part + 1) * part_ids - 1


def file_name(table: str, part: int, delta: int | None = None) -> str:
    """`entries.parquet` of part 3: entries-000003.parquet (the names sort in id order); of
    its delta 2: entries-000003-0002.parquet."""
    stem, suffix = table.split(".")
    return f"{stem}-{part:06d}{'' if delta is None else f'-{delta:04d}'}.{suffix}"


def index_name(part: int, delta: int | None = None) -> str:
    """The row index of a part's (or a delta's) entries CSV (deltas.RowIndex): kept beside the
    files, never served (its name starts with a dot)."""
    return "." + file_name("index.parquet", part, delta)


# A contest's ranks, a file per public contest, numbered by the contest's id.
RANK_TABLES = {
    "ranks.parquet": "Ranks on the contest's board of its ranked entries when the file was made.",
    "ranks.csv": "The same ranks as CSV.",
}


NAME = re.compile(r"^([a-z]+)-([0-9]{6})(?:-([0-9]{4,}))?\.(parquet|csv)$")


def table_of(name: str) -> tuple[str, int] | None:
    """(table, part) a part's, a delta's or a ranks file's name stands for; None for any other
    name (the row indexes' among them)."""
    found = NAME.match(name)
    if not found:
        return None
    stem, number, delta, suffix = found.groups()
    table = f"{stem}.{suffix}"
    if table not in TABLES and (table not in RANK_TABLES or delta is not None):
        return None
    return table, int(number)
