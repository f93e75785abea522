"""Writing one build of the open dataset: its files go into a hidden folder beside the build
served, which is renamed to its final name only once every file is complete (a rename is
atomic: nobody ever reads half a build); the state row then names it (state.py), and builds
older than the one it replaced are removed.

Memory stays bounded whatever the registry's size: entries are read and written ENTRY_BATCH at
a time, series one entry at a time and in slices (tables.series_batches), and the series file
takes a row group each SERIES_ROW_GROUP reports."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from datetime import datetime
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.conf import settings

from submissions.opendata import reads, tables

SERIES_ROW_GROUP = 1 << 17
COMPRESSION = "zstd"
# The files of a build, in the manifest's order, with what each holds.
FILES = {
    "entries.parquet": "One row per published entry: declaration, figures, verdict summary, trust, links.",
    "verdicts.parquet": "One row per ground-rule verdict of those entries, with its evidence.",
    "series.parquet": "One row per report of those entries' logs (rows, seconds, rates, costs).",
    "entries.csv": "The entries table as CSV (text a spreadsheet would run as a formula starts with ').",
}
MEDIA_TYPES = {".parquet": "application/vnd.apache.parquet", ".csv": "text/csv; charset=utf-8"}
SCHEMAS = {
    "entries.parquet": tables.ENTRY_COLUMNS,
    "verdicts.parquet": tables.VERDICT_COLUMNS,
    "series.parquet": tables.SERIES_COLUMNS,
    "entries.csv": tables.ENTRY_COLUMNS,
}


def dataset_root() -> Path:
    return Path(settings.OPEN_DATA_DIR or Path(settings.MEDIA_ROOT) / "open-data")


def build_folder(build: str) -> Path:
    """A build's folder; the name comes from the manifest, never from a request."""
    return dataset_root() / build


def build_dataset(*, built_at: datetime) -> dict:
    """Write a complete build and return its manifest; nothing is served from it until the
    state row names it."""
    started = time.monotonic()
    contests = reads.public_contests(built_at)
    version = reads.registry_version(contests)
    build = f"{built_at:%Y%m%dT%H%M%S%fZ}-{version[:8]}"
    root = dataset_root()
    root.mkdir(parents=True, exist_ok=True)
    hidden = root / f".{build}.{os.getpid()}"
    hidden.mkdir()
    try:
        counts = _write_tables(hidden, contests)
        files = [_described(hidden / name, counts[name]) for name in FILES]
        manifest = {
            "name": "iiBench registry open dataset",
            "build": build,
            "built_at": built_at.isoformat(),
            "build_seconds": round(time.monotonic() - started, 3),
            "registry_version": version,
            "contests": [
                {
                    "slug": contest.slug,
                    "title": contest.title,
                    "track": contest.workload,
                    "id": contest.pk,
                    "board_version": contest.board_version,
                    "entries": counts["by_contest"].get(contest.pk, 0),
                }
                for contest in contests
            ],
            "files": files,
            "columns": {
                name: [
                    {"name": column, "type": str(kind), "meaning": meaning}
                    for column, kind, meaning in SCHEMAS[name]
                ]
                for name in FILES
            },
        }
        hidden.rename(root / build)
    except BaseException:
        shutil.rmtree(hidden, ignore_errors=True)
        raise
    return manifest


def _write_tables(folder: Path, contests) -> dict:
    counts = {name: 0 for name in FILES} | {"by_contest": {}}
    entry_ids: set[int] = set()
    with (
        pq.ParquetWriter(folder / "entries.parquet", tables.ENTRY_SCHEMA, compression=COMPRESSION) as entries,
        pq.ParquetWriter(folder / "verdicts.parquet", tables.VERDICT_SCHEMA, compression=COMPRESSION) as verdicts,
        pa_csv.CSVWriter(folder / "entries.csv", tables.ENTRY_SCHEMA) as csv,
    ):  # fmt: skip
        rows, judged = [], []
        for contest, entry in reads.published_entries(contests):
            rows.append(reads.entry_row(contest, entry))
            judged += tables.verdict_rows(
                entry_id=entry["id"],
                contest=contest.slug,
                rules_version=entry["rules_version__number"],
                verdicts=entry["verdicts"],
            )
            entry_ids.add(entry["id"])
            by_contest = counts["by_contest"]
            by_contest[contest.pk] = by_contest.get(contest.pk, 0) + 1
            if len(rows) >= reads.ENTRY_BATCH:
                _write_entries(rows, judged, entries, verdicts, csv, counts)
                rows, judged = [], []
        _write_entries(rows, judged, entries, verdicts, csv, counts)
    counts["series.parquet"] = _write_series(folder / "series.parquet", contests, entry_ids)
    return counts


def _write_entries(rows, judged, entries, verdicts, csv, counts) -> None:
    if rows:
        batch = tables.rows_batch(tables.ENTRY_SCHEMA, rows)
        entries.write_batch(batch)
        csv.write_batch(tables.csv_safe(batch))
        counts["entries.parquet"] += len(rows)
        counts["entries.csv"] += len(rows)
    if judged:
        verdicts.write_batch(tables.rows_batch(tables.VERDICT_SCHEMA, judged))
        counts["verdicts.parquet"] += len(judged)


def _write_series(path: Path, contests, entry_ids: set[int]) -> int:
    """Every series, one entry at a time, a row group each SERIES_ROW_GROUP reports."""
    written = 0
    gathered = tables.SeriesRows(SERIES_ROW_GROUP)
    with pq.ParquetWriter(path, tables.SERIES_SCHEMA, compression=COMPRESSION) as series:
        for entry_id, columns in reads.published_series(contests, entry_ids):
            for batch in gathered.add(entry_id, columns):
                series.write_batch(batch)
                written += batch.num_rows
            del columns
        rest = gathered.rest()
        if rest.num_rows:
            series.write_batch(rest)
            written += rest.num_rows
    return written


def _described(path: Path, rows: int) -> dict:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return {
        "name": path.name,
        "bytes": path.stat().st_size,
        "sha256": digest.hexdigest(),
        "rows": rows,
        "media_type": MEDIA_TYPES[path.suffix],
        "holds": FILES[path.name],
    }


def remove_builds_except(keep: set[str]) -> None:
    """Remove the builds not in `keep` (the one served and the one it replaced, which a
    download that began before the switch may still be reading), and hidden folders of builds
    that died more than a day ago."""
    root = dataset_root()
    if not root.is_dir():
        return
    for folder in root.iterdir():
        if folder.name in keep or not folder.is_dir():
            continue
        if folder.name.startswith(".") and time.time() - folder.stat().st_mtime < 86400:
            continue  # perhaps another worker's build under way
        shutil.rmtree(folder, ignore_errors=True)
