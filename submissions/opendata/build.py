"""Writing one build of the open dataset: its files go into a hidden folder beside the build
served, which is renamed to its final name only once every file is complete (a rename is
atomic: nobody ever reads half a build); the state row then names it (state.py), and builds
older than the one it replaced are removed.

A build is made of parts (parts.py) and a ranks file per public contest. Which parts changed
since the build served is read from the change log (models.OpenDataChange, written by database
triggers): only those parts are written, the others are hard links to the build served's files;
a contest's ranks file is written again only when its ranks may have moved
(contests.ranks.ranking_signature, and the changed entries ranked now), else linked. So a
build after one upload reads the log, the public contests and their tallies, and that upload's
part: O(the change), whatever the registry's size (submissions/tests/opendata). An upload that
moves ranks also rewrites its contest's ranks file: O(that contest's ranked entries), a few
bytes each.

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

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from django.conf import settings

from submissions.contests.ranks import ranking_signature
from submissions.opendata import parts, reads, tables

SERIES_ROW_GROUP = 1 << 17
# The manifest's mark of a build that read the change log (migration 0037): a build served
# without it is not kept from (its parts' files held a rank column then).
CHANGE_LOG = 1
COMPRESSION = "zstd"
# The tables of a part, in the manifest's order, with what each holds.
FILES = parts.TABLES
MEDIA_TYPES = {".parquet": "application/vnd.apache.parquet", ".csv": "text/csv; charset=utf-8"}
SCHEMAS = {
    "entries.parquet": tables.ENTRY_COLUMNS,
    "verdicts.parquet": tables.VERDICT_COLUMNS,
    "series.parquet": tables.SERIES_COLUMNS,
    "entries.csv": tables.ENTRY_COLUMNS,
    "ranks.parquet": tables.RANK_COLUMNS,
    "ranks.csv": tables.RANK_COLUMNS,
}


def dataset_root() -> Path:
    return Path(settings.OPEN_DATA_DIR or Path(settings.MEDIA_ROOT) / "open-data")


def build_folder(build: str) -> Path:
    """A build's folder; the name comes from the manifest, never from a request."""
    return dataset_root() / build


def build_dataset(*, built_at: datetime, served: dict | None = None) -> tuple[dict, list[int]]:
    """Write a complete build; return its manifest and the change log's rows it reflects
    (delete them once it is served: reads.forget_changes). Nothing is served from it until the
    state row names it. With a build served (`served`, its manifest) whose parts can be kept,
    only the parts holding an entry the change log names (or an entry of a contest made public,
    renamed or hidden since) are written, and only the ranks files of contests whose ranks may
    have moved; every other file is linked from the build served."""
    started = time.monotonic()
    log = reads.logged_changes()  # read first: a change committed later stays for the next build
    contests = reads.public_contests(built_at)
    version = reads.registry_version(contests)
    part_ids = settings.OPEN_DATA_PART_IDS
    before = _served_parts(served or {}, part_ids)
    changed = {entry_id for _, entry_id in log}
    if before:
        touched = {parts.part_of(entry_id, part_ids) for entry_id in changed}
        touched |= _contests_moved(served, contests, part_ids)
        touched |= {held["part"] for held in served["parts"]} - set(before)  # a file gone
    else:  # nothing to keep: every part holding a published entry is written
        touched = reads.contest_parts([contest.pk for contest in contests], part_ids)
    build = f"{built_at:%Y%m%dT%H%M%S%fZ}-{version[:8]}"
    root = dataset_root()
    root.mkdir(parents=True, exist_ok=True)
    hidden = root / f".{build}.{os.getpid()}"
    hidden.mkdir()
    try:
        made = {
            part: _kept_part(hidden, served["build"], held)
            for part, held in before.items()
            if part not in touched
        }
        rebuilt, dropped = [], []
        for part in sorted(touched):
            written = _write_part(hidden, part, part_ids, contests, built_at)
            if written["entries"]:
                made[part] = written
                rebuilt.append(part)
            else:  # no published entry left in its range
                for described in written["files"]:
                    (hidden / described["name"]).unlink()
                if part in before:
                    dropped.append(part)
        held = [made[part] for part in sorted(made)]
        ranks, reranked = _ranks_files(
            hidden, served if before else None, contests, changed, built_at
        )
        plan = {"rebuilt": rebuilt, "kept": len(made) - len(rebuilt), "dropped": dropped}
        manifest = _manifest(build, built_at, version, contests, held, ranks, plan, reranked)
        manifest["changes_read"] = len(log)
        manifest["build_seconds"] = round(time.monotonic() - started, 3)
        hidden.rename(root / build)
    except BaseException:
        shutil.rmtree(hidden, ignore_errors=True)
        raise
    return manifest, [row for row, _ in log]


def _contest_words(contest) -> list:
    """What of a contest every row of its entries carries: a change rebuilds its parts."""
    return [contest.slug, contest.title, contest.workload]


def _contests_moved(served: dict, contests, part_ids: int) -> set[int]:
    """The parts to write again because a contest was made public, hidden again or renamed
    since the build served (the change log names entries, not contests)."""
    before = {held["id"]: held for held in served.get("contests", [])}
    now = {contest.pk: contest for contest in contests}
    moved = [
        pk for pk, contest in now.items()
        if pk not in before or before[pk].get("words") != _contest_words(contest)
    ]  # fmt: skip
    gone = {str(pk) for pk in set(before) - set(now)} | {str(pk) for pk in moved}
    touched = {held["part"] for held in served["parts"] if gone & set(held["by_contest"])}
    return touched | reads.contest_parts(moved, part_ids)


def _served_parts(served: dict, part_ids: int) -> dict[int, dict]:
    """The parts of the build served that a new build may keep: none when it was cut at
    another width, made before the change log (issue 44), or its folder is gone."""
    if served.get("part_ids") != part_ids or served.get("change_log") != CHANGE_LOG:
        return {}
    folder = build_folder(served["build"])
    if not folder.is_dir():
        return {}
    # A part with a file gone (removed by hand) is rebuilt, not linked (build_dataset).
    return {
        held["part"]: held
        for held in served.get("parts", [])
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


def _ranks_files(folder: Path, served: dict | None, contests, changed: set[int], built_at):
    """Each public contest's ranks file: linked from the build served when its ranks cannot
    have moved (the same ranking signature, contests.ranks.ranking_signature, and no entry
    changed since that is ranked now), else read (one window over its ranked entries) and
    written again. Returns the ranks' descriptions and the contests whose ranks were written."""
    before = {held["id"]: held for held in (served or {}).get("ranks", [])}
    source = build_folder(served["build"]) if served else None
    ranked_now = reads.ranked_changes(contests, changed) if before else {}
    held, written = [], []
    for contest in contests:
        found = ranking_signature(contest)
        signature, seq = found if found else (None, None)
        prior = before.get(contest.pk)
        moved = ranked_now.get(contest.pk, {}).values()
        if (
            prior is not None
            and signature is not None
            and prior["signature"] == signature
            and prior["slug"] == contest.slug
            and all(change is not None and change <= prior["ranking_seq"] for change in moved)
            and all((source / d["name"]).is_file() for d in prior["files"])
        ):
            for described in prior["files"]:
                _link(source / described["name"], folder / described["name"])
            held.append(prior)
            continue
        made = _write_ranks(folder, contest, signature, seq, built_at)
        if (
            prior is not None
            and source is not None
            and _same_files(prior, made)
            and all((source / d["name"]).is_file() for d in prior["files"])
        ):
            # Read again (SQLite: no tally) but unchanged: the served file, linked, as it was.
            for described in prior["files"]:
                (folder / described["name"]).unlink()
                _link(source / described["name"], folder / described["name"])
            held.append({**prior, "signature": signature, "ranking_seq": seq})
            continue
        held.append(made)
        written.append(contest.slug)
    return held, written


def _same_files(prior: dict, made: dict) -> bool:
    def sums(held):
        return [(d["name"], d["sha256"]) for d in held["files"]]

    return sums(prior) == sums(made)


def _write_ranks(folder: Path, contest, signature: str | None, seq: int | None, built_at) -> dict:
    """A contest's ranks file, in rank order: O(its ranked entries)."""
    ranks = reads.contest_ranks(contest)
    ordered = sorted(ranks.items(), key=lambda pair: (pair[1], pair[0]))
    table = pa.Table.from_arrays(
        [
            pa.array([entry_id for entry_id, _ in ordered], pa.int64()),
            pa.array([contest.slug] * len(ordered), pa.string()),
            pa.array([rank for _, rank in ordered], pa.int64()),
        ],
        schema=tables.RANK_SCHEMA,
    )
    names = {name: parts.file_name(name, contest.pk) for name in parts.RANK_TABLES}
    pq.write_table(table, folder / names["ranks.parquet"], compression=COMPRESSION)
    pa_csv.write_csv(table, folder / names["ranks.csv"])
    return {
        "id": contest.pk,
        "slug": contest.slug,
        "signature": signature,
        "ranking_seq": seq,
        "entries": len(ordered),
        "built_at": built_at.isoformat(),
        "files": [
            _described(folder / names[name], name, len(ordered), None, built_at, contest=contest.pk)
            for name in parts.RANK_TABLES
        ],
    }


def _manifest(build, built_at, version, contests, held, ranks, plan, reranked) -> dict:
    by_contest: dict[str, int] = {}
    for part in held:
        for contest_id, count in part["by_contest"].items():
            by_contest[contest_id] = by_contest.get(contest_id, 0) + count
    return {
        "name": "iiBench registry open dataset",
        "build": build,
        "built_at": built_at.isoformat(),
        "registry_version": version,
        "change_log": CHANGE_LOG,
        "part_ids": settings.OPEN_DATA_PART_IDS,
        "parts_rebuilt": plan["rebuilt"],
        "parts_kept": plan["kept"],
        "parts_dropped": plan["dropped"],
        "ranks_rewritten": reranked,
        "contests": [
            {
                "slug": contest.slug,
                "title": contest.title,
                "track": contest.workload,
                "id": contest.pk,
                "board_version": contest.board_version,
                "entries": by_contest.get(str(contest.pk), 0),
                "words": _contest_words(contest),
            }
            for contest in contests
        ],
        "parts": held,
        "ranks": ranks,
        "files": [
            *(described for part in held for described in part["files"]),
            *(described for contest in ranks for described in contest["files"]),
        ],
        "whole": whole_files(held),
        "columns": {
            name: [
                {"name": column, "type": str(kind), "meaning": meaning}
                for column, kind, meaning in SCHEMAS[name]
            ]
            for name in SCHEMAS
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


def _write_part(folder, part, part_ids, contests, built_at) -> dict:
    started = time.monotonic()
    ids = parts.id_range(part, part_ids)
    names = {table: parts.file_name(table, part) for table in FILES}
    counts = _write_tables(folder, names, contests, ids)
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


def _write_tables(folder: Path, names: dict, contests, ids) -> dict:
    counts = {name: 0 for name in FILES} | {"by_contest": {}}
    entry_ids: set[int] = set()
    with (
        pq.ParquetWriter(folder / names["entries.parquet"], tables.ENTRY_SCHEMA, compression=COMPRESSION) as entries,
        pq.ParquetWriter(folder / names["verdicts.parquet"], tables.VERDICT_SCHEMA, compression=COMPRESSION) as verdicts,
        pa_csv.CSVWriter(folder / names["entries.csv"], tables.ENTRY_SCHEMA) as csv,
    ):  # fmt: skip
        rows, judged = [], []
        for contest, entry in reads.published_entries(contests, ids):
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
    counts["series.parquet"] = _write_series(folder / names["series.parquet"], entry_ids, ids)
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


def _write_series(path: Path, entry_ids: set[int], ids) -> int:
    """Every series, one entry at a time, a row group each SERIES_ROW_GROUP reports."""
    written = 0
    gathered = tables.SeriesRows(SERIES_ROW_GROUP)
    with pq.ParquetWriter(path, tables.SERIES_SCHEMA, compression=COMPRESSION) as series:
        for entry_id, columns in reads.published_series(entry_ids, ids):
            for batch in gathered.add(entry_id, columns):
                series.write_batch(batch)
                written += batch.num_rows
            del columns
        rest = gathered.rest()
        if rest.num_rows:
            series.write_batch(rest)
            written += rest.num_rows
    return written


def _described(
    path: Path,
    table: str,
    rows: int,
    part: int | None,
    built_at: datetime,
    contest: int | None = None,
) -> dict:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    described = {
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
        described["contest"] = contest
    return described


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
