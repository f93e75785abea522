"""Writing one build of the open dataset: its files go into a hidden folder beside the build
served, which is renamed to its final name only once every file is complete (a rename is
atomic: nobody ever reads half a build); the state row then names it (state.py), and builds
older than the one it replaced are removed.

A build is made of parts (parts.py): only the parts whose fingerprint moved are written; the
others are hard links to the build served's files, so a build after one upload writes one
part's files (and reads the registry's fingerprints: one aggregate in the database).

Memory stays bounded whatever the registry's size: entries are read and written ENTRY_BATCH at
a time, series one entry at a time and in slices (tables.series_batches), and the series file
takes a row group each SERIES_ROW_GROUP reports."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.conf import settings

from submissions.opendata import parts, reads, tables

SERIES_ROW_GROUP = 1 << 17
COMPRESSION = "zstd"
# The tables of a part, in the manifest's order, with what each holds.
FILES = parts.TABLES
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


def build_dataset(*, built_at: datetime, served: dict | None = None) -> dict:
    """Write a complete build and return its manifest; nothing is served from it until the
    state row names it. The parts whose fingerprint equals the one in `served` (the manifest
    of the build served) are linked from its folder, not written again (parts.py)."""
    started = time.monotonic()
    contests = reads.public_contests(built_at)
    version = reads.registry_version(contests)
    part_ids = settings.OPEN_DATA_PART_IDS
    ranks = reads.registry_ranks(contests)
    fingerprints = reads.part_fingerprints(contests, part_ids, ranks)
    before = _served_parts(served or {}, part_ids)
    plan = parts.plan(
        {part: parts.Fingerprint(**held["fingerprint"]) for part, held in before.items()},
        fingerprints,
    )
    build = f"{built_at:%Y%m%dT%H%M%S%fZ}-{version[:8]}"
    root = dataset_root()
    root.mkdir(parents=True, exist_ok=True)
    hidden = root / f".{build}.{os.getpid()}"
    hidden.mkdir()
    try:
        made = {part: _kept_part(hidden, served["build"], before[part]) for part in plan.keep}
        for part in plan.rerank:
            made[part] = _reranked_part(hidden, served["build"], before[part], ranks, built_at)
        for part in plan.rebuild:
            made[part] = _write_part(hidden, part, part_ids, contests, ranks, built_at)
        for part in (*plan.rerank, *plan.rebuild):
            made[part]["fingerprint"] = asdict(fingerprints[part])
        held = [made[part] for part in sorted(made)]
        manifest = _manifest(build, built_at, version, contests, held, plan)
        manifest["build_seconds"] = round(time.monotonic() - started, 3)
        hidden.rename(root / build)
    except BaseException:
        shutil.rmtree(hidden, ignore_errors=True)
        raise
    return manifest


def _served_parts(served: dict, part_ids: int) -> dict[int, dict]:
    """The parts of the build served that a new build may keep: none when it was cut at
    another width, made before the dataset had parts, or its folder is gone."""
    if served.get("part_ids") != part_ids or not served.get("parts"):
        return {}
    folder = build_folder(served["build"])
    if not folder.is_dir():
        return {}
    # A part with a file gone (removed by hand) is rebuilt, not linked.
    return {
        held["part"]: held
        for held in served["parts"]
        if all((folder / described["name"]).is_file() for described in held["files"])
    }


def _kept_part(folder: Path, served_build: str, held: dict) -> dict:
    """A part unchanged since the build served: its files linked (same bytes, same mtime)."""
    for described in held["files"]:
        source = build_folder(served_build) / described["name"]
        _link(source, folder / described["name"])
    return held


def _link(source: Path, target: Path) -> None:
    """`target` the same file as `source`: a hard link (same bytes, same mtime, no copy)."""
    try:
        os.link(source, target)
    except OSError:  # another file system, or links not allowed: a copy is as good
        shutil.copy2(source, target)


def _reranked_part(folder: Path, served_build: str, held: dict, ranks, built_at) -> dict:
    """A part whose entries' rows are unchanged but some of whose ranks moved: its entries
    Parquet read back from the build served with the rank column set anew, written again with
    its CSV; its verdicts and series linked. No row of it is read from the registry."""
    started = time.monotonic()
    source = build_folder(served_build)
    by_table = {described["table"]: described for described in held["files"]}
    names = {table: described["name"] for table, described in by_table.items()}
    table = pq.read_table(source / names["entries.parquet"], schema=tables.ENTRY_SCHEMA)
    ranked = pa.array([ranks.get(entry_id) for entry_id in table["id"].to_pylist()], pa.int64())
    table = table.set_column(
        table.schema.get_field_index("rank"), tables.ENTRY_SCHEMA.field("rank"), ranked
    )
    with (
        pq.ParquetWriter(folder / names["entries.parquet"], tables.ENTRY_SCHEMA, compression=COMPRESSION) as entries,
        pa_csv.CSVWriter(folder / names["entries.csv"], tables.ENTRY_SCHEMA) as csv,
    ):  # fmt: skip
        for batch in table.to_batches(max_chunksize=reads.ENTRY_BATCH):
            entries.write_batch(batch)
            csv.write_batch(tables.csv_safe(batch))
    files = []
    for table_name, described in by_table.items():
        if table_name in ("entries.parquet", "entries.csv"):
            files.append(
                _described(
                    folder / described["name"],
                    table_name,
                    described["rows"],
                    held["part"],
                    built_at,
                )
            )
        else:
            _link(source / described["name"], folder / described["name"])
            files.append(described)
    return {
        **held,
        "built_at": built_at.isoformat(),
        "build_seconds": round(time.monotonic() - started, 3),
        "files": files,
    }


def _manifest(build, built_at, version, contests, held, plan) -> dict:
    by_contest: dict[str, int] = {}
    for part in held:
        for contest_id, count in part["by_contest"].items():
            by_contest[contest_id] = by_contest.get(contest_id, 0) + count
    return {
        "name": "iiBench registry open dataset",
        "build": build,
        "built_at": built_at.isoformat(),
        "registry_version": version,
        "part_ids": settings.OPEN_DATA_PART_IDS,
        "parts_rebuilt": list(plan.rebuild),
        "parts_reranked": list(plan.rerank),
        "parts_kept": len(plan.keep),
        "parts_dropped": list(plan.drop),
        "contests": [
            {
                "slug": contest.slug,
                "title": contest.title,
                "track": contest.workload,
                "id": contest.pk,
                "board_version": contest.board_version,
                "entries": by_contest.get(str(contest.pk), 0),
            }
            for contest in contests
        ],
        "parts": held,
        "files": [described for part in held for described in part["files"]],
        "whole": whole_files(held),
        "columns": {
            name: [
                {"name": column, "type": str(kind), "meaning": meaning}
                for column, kind, meaning in SCHEMAS[name]
            ]
            for name in FILES
        },
    }


def whole_files(held: list[dict]) -> list[dict]:
    """The whole-registry download: the entries CSV as the parts' CSV one after another under
    one header (web/open_data.py streams it), its rows and size known from the parts'."""
    csvs = [d for part in held for d in part["files"] if d["table"] == "entries.csv"]
    header = len(csv_header())
    return [
        {
            "name": "entries.csv",
            "rows": sum(d["rows"] for d in csvs),
            "bytes": header + sum(d["bytes"] - header for d in csvs),
            "parts": len(csvs),
            # The parts' checksums, digested: equal only when every part is the same.
            "etag": hashlib.sha256("".join(d["sha256"] for d in csvs).encode()).hexdigest(),
            "media_type": MEDIA_TYPES[".csv"],
            "holds": "Every part's entries.csv in id order under one header.",
        }
    ]


def csv_header() -> bytes:
    """The entries CSV's header line, as pyarrow writes it atop every part."""
    sink = io.BytesIO()
    pa_csv.write_csv(tables.ENTRY_SCHEMA.empty_table(), sink)
    return sink.getvalue()


def _write_part(folder, part, part_ids, contests, ranks, built_at) -> dict:
    started = time.monotonic()
    ids = parts.id_range(part, part_ids)
    names = {table: parts.file_name(table, part) for table in FILES}
    counts = _write_tables(folder, names, contests, ids, ranks)
    return {
        "part": part,
        "first_id": ids[0],
        "last_id": ids[1],
        "entries": counts["entries.parquet"],
        "by_contest": counts["by_contest"],
        "built_at": built_at.isoformat(),
        "build_seconds": round(time.monotonic() - started, 3),
        "files": [
            _described(folder / names[table], table, counts[table], part, built_at)
            for table in FILES
        ],
    }


def _write_tables(folder: Path, names: dict, contests, ids, ranks) -> dict:
    counts = {name: 0 for name in FILES} | {"by_contest": {}}
    entry_ids: set[int] = set()
    with (
        pq.ParquetWriter(folder / names["entries.parquet"], tables.ENTRY_SCHEMA, compression=COMPRESSION) as entries,
        pq.ParquetWriter(folder / names["verdicts.parquet"], tables.VERDICT_SCHEMA, compression=COMPRESSION) as verdicts,
        pa_csv.CSVWriter(folder / names["entries.csv"], tables.ENTRY_SCHEMA) as csv,
    ):  # fmt: skip
        rows, judged = [], []
        for contest, entry in reads.published_entries(contests, ids, ranks):
            rows.append(reads.entry_row(contest, entry))
            judged += tables.verdict_rows(
                entry_id=entry["id"],
                contest=contest.slug,
                rules_version=entry["rules_version__number"],
                verdicts=entry["verdicts"],
            )
            entry_ids.add(entry["id"])
            by_contest = counts["by_contest"]
            by_contest[str(contest.pk)] = by_contest.get(str(contest.pk), 0) + 1
            if len(rows) >= reads.ENTRY_BATCH:
                _write_entries(rows, judged, entries, verdicts, csv, counts)
                rows, judged = [], []
        _write_entries(rows, judged, entries, verdicts, csv, counts)
    counts["series.parquet"] = _write_series(
        folder / names["series.parquet"], contests, entry_ids, ids
    )
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


def _write_series(path: Path, contests, entry_ids: set[int], ids) -> int:
    """Every series, one entry at a time, a row group each SERIES_ROW_GROUP reports."""
    written = 0
    gathered = tables.SeriesRows(SERIES_ROW_GROUP)
    with pq.ParquetWriter(path, tables.SERIES_SCHEMA, compression=COMPRESSION) as series:
        for entry_id, columns in reads.published_series(contests, entry_ids, ids):
            for batch in gathered.add(entry_id, columns):
                series.write_batch(batch)
                written += batch.num_rows
            del columns
        rest = gathered.rest()
        if rest.num_rows:
            series.write_batch(rest)
            written += rest.num_rows
    return written


def _described(path: Path, table: str, rows: int, part: int, built_at: datetime) -> dict:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return {
        "name": path.name,
        "table": table,
        "part": part,
        "bytes": path.stat().st_size,
        "sha256": digest.hexdigest(),
        "rows": rows,
        "built_at": built_at.isoformat(),
        "media_type": MEDIA_TYPES[path.suffix],
        "holds": FILES[table],
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
