"""The open dataset's parts (pure: no Django). The dataset is cut into fixed ranges of entry
ids, PART_IDS wide: part k holds the published entries whose id is in [k * PART_IDS,
(k + 1) * PART_IDS), with their verdicts and series, each table its own file. Ids never move
between ranges, so an upload, an edit, a deletion or a move to another contest changes the
part holding that entry and, through the ranks, those holding the entries whose rank it moved:
no other part is read or written.

What a part reflects is its fingerprint: a digest of its entries' rows as the registry holds
them (with their series' size, contest, stream and rule version) and one of its entries'
ranks. A part whose fingerprint equals the one the build served recorded is kept as it is (its
files linked into the new build); any other is rebuilt; a part with no entry left is dropped."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

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


def file_name(table: str, part: int) -> str:
    """`entries.parquet` of part 3: entries-000003.parquet (the names sort in id order)."""
    stem, suffix = table.split(".")
    return f"{stem}-{part:06d}.{suffix}"


def table_of(name: str) -> tuple[str, int] | None:
    """(table, part) a part file's name stands for; None for any other name."""
    stem, _, suffix = name.partition(".")
    table, _, digits = stem.rpartition("-")
    if not digits.isdigit() or len(digits) != 6 or f"{table}.{suffix}" not in TABLES:
        return None
    return f"{table}.{suffix}", int(digits)


def ranks_digest(ranks: Iterable[tuple[int, int | None]]) -> str:
    """A digest of (entry id, rank) pairs, in id order."""
    digest = hashlib.sha256()
    for entry_id, rank in sorted(ranks):
        digest.update(f"{entry_id}:{rank};".encode())
    return digest.hexdigest()[:32]


def fingerprint(rows_digest: str, ranks: str) -> str:
    return hashlib.sha256(f"{rows_digest}|{ranks}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Plan:
    """What a build does with each part: keep it (its files linked from the build served),
    rebuild it, or drop it (no entry left in its range)."""

    keep: tuple[int, ...]
    rebuild: tuple[int, ...]
    drop: tuple[int, ...]


def plan(served: dict[int, str], now: dict[int, str]) -> Plan:
    """`served`: {part: fingerprint} of the build served; `now`: the registry's."""
    keep = tuple(sorted(part for part, found in now.items() if served.get(part) == found))
    rebuild = tuple(sorted(part for part, found in now.items() if served.get(part) != found))
    drop = tuple(sorted(set(served) - set(now)))
    return Plan(keep=keep, rebuild=rebuild, drop=drop)
