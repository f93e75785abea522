"""A part's deltas (pure: numpy and pyarrow, no Django). An edit, a deletion or an upload that
lands in a part already written does not rewrite the part: the build writes a delta, four small
files holding the current rows of the entries changed (entries, verdicts, series, the entries'
CSV), and names in the manifest the ids it `replaces`. A reader takes the part's files, then
each delta in order: drops every row whose entry id is in the delta's `replaces` and adds the
delta's rows (an id replaced with no row in the delta was deleted, or left the dataset). So an
edit writes O(its rows) (docs/api.md, "The open dataset").

Which deltas a change writes (`plan`): the deltas are kept few by merging, as a binary counter
does: the new delta takes in the last delta while that one replaces no more ids than the new one
(each id is written again O(log) times, and a part has O(log) deltas); and the part is written
whole again (compacted) once its deltas replace more than a COMPACT-th of the part's rows:
each row of the part is then paid for by COMPACT changed entries.

The entries' CSV of the whole registry is sent as one file in id order (web/open_data.py): each
CSV's row index (`RowIndex`: each row's entry id, contest id, a digest of the entrant's name
where the row publishes it, and where it ends in the file), kept beside the files, says which bytes of which file are
each entry's row, without reading the CSV."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

# A part is written whole again once its deltas replace more than 1/COMPACT of its base's rows.
COMPACT = 8
QUOTE, NEWLINE = ord('"'), ord("\n")
INDEX_SCHEMA = pa.schema(
    [("id", pa.int64()), ("contest", pa.int64()), ("name", pa.int64()), ("end", pa.int64())]
)


@dataclass(frozen=True)
class Plan:
    """What a change of `pending` ids in a part writes: a delta replacing `replaces` (the
    changed ids and those of the deltas it takes in) after the part's first `keep` deltas, or
    the part whole (`whole`)."""

    whole: bool
    keep: int = 0
    replaces: frozenset[int] = frozenset()


def plan(deltas: list[dict], changed: set[int], base_rows: int) -> Plan:
    """The delta to write for `changed` ids of a part whose served deltas are `deltas` (each
    with its "replaces") over a base of `base_rows` rows."""
    pending = set(changed)
    keep = len(deltas)
    while keep and len(deltas[keep - 1]["replaces"]) <= len(pending):
        keep -= 1
        pending |= set(deltas[keep]["replaces"])
    named = set(pending).union(*(delta["replaces"] for delta in deltas[:keep]))
    if len(named) * COMPACT > base_rows:
        return Plan(whole=True)
    return Plan(whole=False, keep=keep, replaces=frozenset(pending))


@dataclass(frozen=True)
class RowIndex:
    """The rows of one entries CSV (a part's or a delta's): entry ids, contest ids, the
    digest of the entrant's name the row publishes (name_digest), and each row's end offset in
    the file (a row starts where the one before ends, the first after the header)."""

    ids: np.ndarray
    contests: np.ndarray
    names: np.ndarray
    ends: np.ndarray
    header: int

    @classmethod
    def empty(cls, header: int) -> RowIndex:
        nothing = np.empty(0, np.int64)
        return cls(nothing, nothing, nothing, nothing, header)

    def starts(self) -> np.ndarray:
        return np.concatenate([[self.header], self.ends[:-1]]).astype(np.int64)[: len(self.ends)]

    def table(self) -> pa.Table:
        return pa.Table.from_arrays(
            [
                pa.array(self.ids),
                pa.array(self.contests),
                pa.array(self.names),
                pa.array(self.ends),
            ],
            schema=INDEX_SCHEMA.with_metadata({"header": str(self.header)}),
        )

    @classmethod
    def from_table(cls, table: pa.Table) -> RowIndex:
        header = int(table.schema.metadata[b"header"])
        return cls(
            table["id"].to_numpy(),
            table["contest"].to_numpy(),
            table["name"].to_numpy(),
            table["end"].to_numpy(),
            header,
        )


class RowCounter:
    """Builds a CSV's RowIndex as its batches are written: each batch's CSV bytes (no header)
    are cut into rows at the newlines outside quotes (a quote inside a cell is doubled, so a
    newline is a row's end when the quotes before it are even in number)."""

    def __init__(self, header: int) -> None:
        self.header = header
        self.offset = header
        self.parts: list[tuple[np.ndarray, ...]] = []

    def add(self, text: bytes, ids, contests, names) -> None:
        data = np.frombuffer(text, np.uint8)
        quotes = np.flatnonzero(data == QUOTE)
        newlines = np.flatnonzero(data == NEWLINE)
        outside = np.searchsorted(quotes, newlines) % 2 == 0  # the quotes before it, even
        ends = newlines[outside] + 1 + self.offset
        if len(ends) != len(ids):
            raise ValueError(f"a CSV batch of {len(ids)} rows was cut into {len(ends)} rows")
        self.parts.append(
            (
                np.asarray(ids, np.int64),
                np.asarray(contests, np.int64),
                np.asarray(names, np.int64),
                ends.astype(np.int64),
            )
        )
        self.offset += len(text)

    def index(self) -> RowIndex:
        if not self.parts:
            return RowIndex.empty(self.header)
        columns = [np.concatenate(column) for column in zip(*self.parts, strict=True)]
        return RowIndex(*columns, header=self.header)


def live_rows(indexes: list[RowIndex], replaces: list[frozenset[int]]) -> list[np.ndarray]:
    """For each CSV of a part (its base, then its deltas in order: `replaces[i]` is delta i's,
    `replaces[0]` ignored), which of its rows a reader keeps: those no later delta replaces."""
    kept: list[np.ndarray] = [np.empty(0, bool)] * len(indexes)
    later: set[int] = set()
    for position in range(len(indexes) - 1, -1, -1):
        ids = indexes[position].ids
        kept[position] = ~np.isin(ids, np.fromiter(later, np.int64, len(later)))
        if position:
            later |= replaces[position]
    return kept


@dataclass(frozen=True)
class Tally:
    """A part as a reader reads it: its entries, by contest, its CSV's bytes (no header), and
    {entry id: name_digest} of the rows that publish the entrant's name."""

    entries: int
    by_contest: dict[str, int]
    csv_bytes: int
    names: dict[int, int]


def tally(indexes: list[RowIndex], replaces: list[frozenset[int]]) -> Tally:
    masks = live_rows(indexes, replaces)
    by_contest: dict[str, int] = {}
    entries = csv_bytes = 0
    names: dict[int, int] = {}
    for index, mask in zip(indexes, masks, strict=True):
        entries += int(mask.sum())
        csv_bytes += int((index.ends - index.starts())[mask].sum())
        contests, counts = np.unique(index.contests[mask], return_counts=True)
        for contest, count in zip(contests.tolist(), counts.tolist(), strict=True):
            by_contest[str(contest)] = by_contest.get(str(contest), 0) + count
        published = mask & (index.names != 0)
        names.update(
            zip(index.ids[published].tolist(), index.names[published].tolist(), strict=True)
        )
    return Tally(entries, dict(sorted(by_contest.items())), csv_bytes, names)


def contests_held(indexes: list[RowIndex]) -> list[int]:
    """The contests with a row in any of these files, a row a delta replaced too."""
    return sorted({int(c) for index in indexes for c in np.unique(index.contests).tolist()})


def name_digest(name: str | None) -> int:
    """A row's published name as a nonzero 63-bit number; 0: the row publishes no name."""
    if name is None:
        return 0
    digest = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big")
    return (digest >> 1) or 1


def withdrawn(was: Tally, now: Tally) -> set[int]:
    """The entries whose published name a change took back (unpublished, changed, or the entry
    gone): the name must then leave every file served, not only a reader's view."""
    return {entry for entry, name in was.names.items() if now.names.get(entry) != name}


def byte_ranges(
    indexes: list[RowIndex], replaces: list[frozenset[int]]
) -> list[tuple[int, int, int]]:
    """(file, first byte, byte past the last) ranges whose bytes, one after another, are the
    part's live CSV rows in id order (adjacent rows of one file in one range)."""
    masks = live_rows(indexes, replaces)
    ids = np.concatenate([index.ids[mask] for index, mask in zip(indexes, masks, strict=True)])
    files = np.concatenate([np.full(int(mask.sum()), n, np.int64) for n, mask in enumerate(masks)])
    starts = np.concatenate(
        [index.starts()[mask] for index, mask in zip(indexes, masks, strict=True)]
    )
    ends = np.concatenate([index.ends[mask] for index, mask in zip(indexes, masks, strict=True)])
    order = np.argsort(ids, kind="stable")
    ranges: list[tuple[int, int, int]] = []
    for file, start, end in zip(
        files[order].tolist(), starts[order].tolist(), ends[order].tolist(), strict=True
    ):
        if ranges and ranges[-1][0] == file and ranges[-1][2] == start:
            ranges[-1] = (file, ranges[-1][1], end)
        else:
            ranges.append((file, start, end))
    return ranges
