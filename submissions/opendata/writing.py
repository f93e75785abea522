"""Writing a part of the open dataset into a build's folder (build.py): whole (its entries,
verdicts, series and entries' CSV read by the part's id range), amended by a delta (the
current rows of the entries changed since, read by their ids: O(their rows), deltas.py), or
kept (the build served's files hard-linked). Each entries CSV gets its row index beside it
(deltas.RowIndex), which the whole-registry CSV is cut from.

Memory stays bounded whatever the registry's size: entries are read and written ENTRY_BATCH at
a time, series one entry at a time and in slices (tables.series_batches), and the series file
takes a row group each SERIES_ROW_GROUP reports."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import time
from datetime import datetime
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.conf import settings

from submissions.opendata import deltas, parts, reads, tables

SERIES_ROW_GROUP = 1 << 17
COMPRESSION = "zstd"
# The tables of a part, in the manifest's order, with what each holds.
FILES = parts.TABLES
MEDIA_TYPES = {".parquet": "application/vnd.apache.parquet", ".csv": "text/csv; charset=utf-8"}
NO_HEADER = pa_csv.WriteOptions(include_header=False)


def dataset_root() -> Path:
    return Path(settings.OPEN_DATA_DIR or Path(settings.MEDIA_ROOT) / "open-data")


def build_folder(build: str) -> Path:
    """A build's folder; the name comes from the manifest, never from a request."""
    return dataset_root() / build


def csv_header() -> bytes:
    """The entries CSV's header line, as pyarrow writes it atop every part."""
    sink = io.BytesIO()
    pa_csv.write_csv(tables.ENTRY_SCHEMA.empty_table(), sink)
    return sink.getvalue()


def link(source: Path, target: Path) -> None:
    """`target` the same file as `source`: a hard link (same bytes, same mtime, no copy)."""
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed: a copy is as good
        shutil.copy2(source, target)


def part_names(held: dict) -> list[str]:
    """Every file of a part as the manifest describes it: its files, its deltas' and their
    row indexes."""
    names = [described["name"] for described in held["files"]]
    names += [held["index"]] if held.get("index") else []
    for delta in held.get("deltas", []):
        names += [described["name"] for described in delta["files"]] + [delta["index"]]
    return names


def kept_part(folder: Path, served_build: str, held: dict) -> dict:
    """A part unchanged since the build served: its files linked (same bytes, same mtime)."""
    for name in part_names(held):
        link(build_folder(served_build) / name, folder / name)
    return held


def row_index(folder: Path, name: str) -> deltas.RowIndex:
    return deltas.RowIndex.from_table(pq.read_table(folder / name))


def write_part(folder: Path, part: int, part_ids: int, contests, built_at) -> dict:
    """The part written whole: every published entry of its id range."""
    started = time.monotonic()
    ids = parts.id_range(part, part_ids)
    names = {table: parts.file_name(table, part) for table in FILES}
    counts, index = _write_tables(folder, names, contests, ids, None)
    pq.write_table(index.table(), folder / parts.index_name(part))
    whole = deltas.tally([index], [frozenset()])
    return {
        "part": part,
        "first_id": ids[0],
        "last_id": ids[1],
        "entries": whole.entries,
        "by_contest": whole.by_contest,
        "held_contests": deltas.contests_held([index]),
        "csv_bytes": whole.csv_bytes,
        "built_at": built_at.isoformat(),
        "build_seconds": round(time.monotonic() - started, 3),
        "files": [
            described(folder / names[table], table, counts[table], part, built_at)
            for table in FILES
        ],
        "index": parts.index_name(part),
        "deltas": [],
        "next_delta": 1,
    }


def amend_part(
    folder: Path, source: Path, held: dict, changed: set[int], contests, built_at
) -> dict | None:
    """The part served (`held`, its files in `source`) with a delta for the `changed` ids,
    or None when it is to be written whole: its deltas would replace too much of it
    (deltas.plan), or the change withdraws an entrant's name (unpublished, or the named entry
    deleted), which must then leave every file served, not only the reader's view."""
    started = time.monotonic()
    served = held.get("deltas", [])
    plan = deltas.plan(served, changed, held["files"][0]["rows"])
    if plan.whole:
        return None
    part, number = held["part"], held.get("next_delta", 1)
    names = {table: parts.file_name(table, part, number) for table in FILES}
    ids = parts.id_range(part, settings.OPEN_DATA_PART_IDS)
    counts, index = _write_tables(folder, names, contests, ids, plan.replaces)
    kept = served[: plan.keep]
    before = [row_index(source, held["index"])] + [row_index(source, d["index"]) for d in served]
    after = [*before[: 1 + plan.keep], index]
    was = deltas.tally(before, [frozenset(), *(frozenset(d["replaces"]) for d in served)])
    now = deltas.tally(
        after, [frozenset(), *(frozenset(d["replaces"]) for d in kept), plan.replaces]
    )
    if deltas.withdrawn(was, now):
        for name in names.values():
            (folder / name).unlink()
        return None
    pq.write_table(index.table(), folder / parts.index_name(part, number))
    for name in part_names({**held, "deltas": kept}):
        link(source / name, folder / name)
    delta = {
        "delta": number,
        "replaces": sorted(plan.replaces),
        "entries": counts["entries.parquet"],
        "built_at": built_at.isoformat(),
        "files": [
            described(folder / names[table], table, counts[table], part, built_at, delta=number)
            for table in FILES
        ],
        "index": parts.index_name(part, number),
    }
    return {
        **held,
        "entries": now.entries,
        "by_contest": now.by_contest,
        "held_contests": deltas.contests_held(after),
        "csv_bytes": now.csv_bytes,
        "built_at": built_at.isoformat(),
        "build_seconds": round(time.monotonic() - started, 3),
        "deltas": [*kept, delta],
        "next_delta": number + 1,
    }


def _write_tables(folder: Path, names: dict, contests, ids, only) -> tuple[dict, deltas.RowIndex]:
    counts = {name: 0 for name in FILES}
    entry_ids: set[int] = set()
    header = csv_header()
    rows_of_csv = deltas.RowCounter(len(header))
    with (
        pq.ParquetWriter(folder / names["entries.parquet"], tables.ENTRY_SCHEMA, compression=COMPRESSION) as entries,
        pq.ParquetWriter(folder / names["verdicts.parquet"], tables.VERDICT_SCHEMA, compression=COMPRESSION) as verdicts,
        (folder / names["entries.csv"]).open("wb") as csv,
    ):  # fmt: skip
        csv.write(header)
        writers = (entries, verdicts, csv, rows_of_csv)
        rows, judged, keys = [], [], []
        for contest, entry in reads.published_entries(contests, ids, only):
            rows.append(reads.entry_row(contest, entry))
            named = rows[-1]["entrant"] if entry["publish"] else None
            keys.append((entry["id"], contest.pk, deltas.name_digest(named)))
            judged += tables.verdict_rows(
                entry_id=entry["id"],
                contest=contest.slug,
                rules_version=entry["rules_version__number"],
                verdicts=entry["verdicts"],
            )
            entry_ids.add(entry["id"])
            if len(rows) >= reads.ENTRY_BATCH:
                _write_entries(rows, judged, keys, writers, counts)
                rows, judged, keys = [], [], []
        _write_entries(rows, judged, keys, writers, counts)
    counts["series.parquet"] = _write_series(folder / names["series.parquet"], entry_ids, ids, only)
    return counts, rows_of_csv.index()


def _write_entries(rows, judged, keys, writers, counts) -> None:
    entries, verdicts, csv, rows_of_csv = writers
    if rows:
        batch = tables.rows_batch(tables.ENTRY_SCHEMA, rows)
        entries.write_batch(batch)
        sink = io.BytesIO()
        pa_csv.write_csv(tables.csv_safe(batch), sink, NO_HEADER)
        text = sink.getvalue()
        csv.write(text)
        rows_of_csv.add(text, *zip(*keys, strict=True))
        counts["entries.parquet"] += len(rows)
        counts["entries.csv"] += len(rows)
    if judged:
        verdicts.write_batch(tables.rows_batch(tables.VERDICT_SCHEMA, judged))
        counts["verdicts.parquet"] += len(judged)


def _write_series(path: Path, entry_ids: set[int], ids, only) -> int:
    """Every series, one entry at a time, a row group each SERIES_ROW_GROUP reports."""
    written = 0
    gathered = tables.SeriesRows(SERIES_ROW_GROUP)
    with pq.ParquetWriter(path, tables.SERIES_SCHEMA, compression=COMPRESSION) as series:
        for entry_id, columns in reads.published_series(entry_ids, ids, only):
            for batch in gathered.add(entry_id, columns):
                series.write_batch(batch)
                written += batch.num_rows
            del columns
        rest = gathered.rest()
        if rest.num_rows:
            series.write_batch(rest)
            written += rest.num_rows
    return written


def described(
    path: Path,
    table: str,
    rows: int,
    part: int | None,
    built_at: datetime,
    contest: int | None = None,
    delta: int | None = None,
) -> dict:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    found = {
        "name": path.name,
        "table": table,
        "part": part,
        "bytes": path.stat().st_size,
        "sha256": digest.hexdigest(),
        "rows": rows,
        "built_at": built_at.isoformat(),
        "media_type": MEDIA_TYPES[path.suffix],
        "holds": FILES.get(table) or parts.RANK_TABLES[table],
    }
    if contest is not None:
        found["contest"] = contest
    if delta is not None:
        found["delta"] = delta
    return found


def csv_pieces(folder: Path, part: dict, header: int) -> list[tuple[Path, int, int]]:
    """(file, first byte, byte past the last) of a part's live entries CSV rows in id order:
    its CSV past the header when it has no delta, else cut by the row indexes (deltas.py)."""
    base = next(folder / d["name"] for d in part["files"] if d["table"] == "entries.csv")
    if not part.get("deltas"):
        return [(base, header, base.stat().st_size)]
    files = [base] + [
        folder / next(d["name"] for d in delta["files"] if d["table"] == "entries.csv")
        for delta in part["deltas"]
    ]
    indexes = [row_index(folder, part["index"])]
    indexes += [row_index(folder, delta["index"]) for delta in part["deltas"]]
    replaces = [frozenset(), *(frozenset(delta["replaces"]) for delta in part["deltas"])]
    return [(files[file], start, end) for file, start, end in deltas.byte_ranges(indexes, replaces)]
