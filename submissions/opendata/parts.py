"""The open dataset's parts (pure: no Django). The dataset is cut into fixed ranges of entry
ids, PART_IDS wide: part k holds the published entries whose id is in [k * PART_IDS,
(k + 1) * PART_IDS), with their verdicts and series, each table its own file. Ids never move
between ranges, so an upload, an edit, a deletion or a move to another contest changes the
part holding that entry and, through the ranks, those holding the entries whose rank it moved:
no other part is read or written.

What a part reflects is its fingerprint: a digest of its entries' rows as the registry holds
them (with their series' size, contest, stream and rule version) and one of its entries'
ranks. A part whose fingerprint equals the one the build served recorded is kept as it is (its
files linked into the new build); one whose ranks alone moved (an upload placed above its
entries) gets its entries files rewritten from the served ones with the new ranks, no row read
from the registry; any other is rebuilt; a part with no entry left is dropped."""

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


@dataclass(frozen=True)
class Fingerprint:
    """What a part reflects: its entries' rows (as stored, with their series) and their ranks."""

    rows: str
    ranks: str


@dataclass(frozen=True)
class Plan:
    """What a build does with each part: keep it (its files linked from the build served),
    rerank it (only ranks moved: its entries files rewritten from the served part's with the
    new ranks, its verdicts and series linked), rebuild it from the registry, or drop it (no
    entry left in its range)."""

    keep: tuple[int, ...]
    rerank: tuple[int, ...]
    rebuild: tuple[int, ...]
    drop: tuple[int, ...]


def plan(served: dict[int, Fingerprint], now: dict[int, Fingerprint]) -> Plan:
    """`served`: {part: fingerprint} of the build served; `now`: the registry's."""
    keep, rerank, rebuild = [], [], []
    for part in sorted(now):
        before = served.get(part)
        if before == now[part]:
            keep.append(part)
        elif before is not None and before.rows == now[part].rows:
            rerank.append(part)
        else:
            rebuild.append(part)
    drop = tuple(sorted(set(served) - set(now)))
    return Plan(keep=tuple(keep), rerank=tuple(rerank), rebuild=tuple(rebuild), drop=drop)
