"""Writing one build of the open dataset: its files go into a hidden folder beside the build
served, which is renamed to its final name only once every file is complete (a rename is
atomic: nobody ever reads half a build); the state row then names it (state.py), and builds
older than the one it replaced are removed.

A build is made of parts (parts.py) and a ranks file per public contest. Which parts changed
since the build served is read from the change log (models.OpenDataChange, written by database
triggers): a part holding a changed entry gets a delta (deltas.py: the current rows of the
entries changed, read by their ids) or, when its deltas grow past a share of it, is written
whole again (writing.py); every other part's files are hard links to the build served's; a
contest's ranks file is written again only when its ranks may have moved
(contests.ranks.ranking_signature, and the changed entries ranked now), else linked. So a
build after one upload, edit or deletion reads the log, the public contests and their tallies,
and the changed entries: O(the change), whatever the registry's and the part's size
(submissions/tests/opendata). An upload that moves ranks also rewrites its contest's ranks
file: O(that contest's ranked entries), a few bytes each."""

from __future__ import annotations

import hashlib
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
from submissions.opendata import parts, reads, tables, writing
from submissions.opendata.writing import (
    COMPRESSION,
    MEDIA_TYPES,
    build_folder,
    csv_header,
    dataset_root,
)

# The manifest's mark of a build that read the change log (migration 0037): a build served
# without it is not kept from (its parts' files held a rank column then).
CHANGE_LOG = 1
FILES = writing.FILES  # a part's tables, in the manifest's order
SCHEMAS = {
    "entries.parquet": tables.ENTRY_COLUMNS,
    "verdicts.parquet": tables.VERDICT_COLUMNS,
    "series.parquet": tables.SERIES_COLUMNS,
    "entries.csv": tables.ENTRY_COLUMNS,
    "ranks.parquet": tables.RANK_COLUMNS,
    "ranks.csv": tables.RANK_COLUMNS,
}


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
    by_part: dict[int, set[int]] = {}
    for entry_id in changed:
        by_part.setdefault(parts.part_of(entry_id, part_ids), set()).add(entry_id)
    if before:
        whole = _contests_moved(served, contests, part_ids)
        whole |= {held["part"] for held in served["parts"]} - set(before)  # a file gone
    else:  # nothing to keep: every part holding a published entry is written
        whole = reads.contest_parts([contest.pk for contest in contests], part_ids)
    touched = set(by_part) | whole
    build = f"{built_at:%Y%m%dT%H%M%S%fZ}-{version[:8]}"
    root = dataset_root()
    root.mkdir(parents=True, exist_ok=True)
    hidden = root / f".{build}.{os.getpid()}"
    hidden.mkdir()
    try:
        made = {
            part: writing.kept_part(hidden, served["build"], held)
            for part, held in before.items()
            if part not in touched
        }
        rebuilt, amended, dropped = [], [], []
        for part in sorted(touched):
            written = None
            if part not in whole and before.get(part, {}).get("index"):
                source = build_folder(served["build"])
                written = writing.amend_part(
                    hidden, source, before[part], by_part[part], contests, built_at
                )
            (amended if written else rebuilt).append(part)
            written = written or writing.write_part(hidden, part, part_ids, contests, built_at)
            if written["entries"]:
                made[part] = written
            else:  # no published entry left in its range
                for name in writing.part_names(written):
                    (hidden / name).unlink()
                (amended if part in amended else rebuilt).remove(part)
                if part in before:
                    dropped.append(part)
        held = [made[part] for part in sorted(made)]
        ranks, reranked = _ranks_files(
            hidden, served if before else None, contests, changed, built_at
        )
        plan = {
            "rebuilt": rebuilt,
            "amended": amended,
            "kept": len(made) - len(rebuilt) - len(amended),
            "dropped": dropped,
        }
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
    touched = {
        held["part"]
        for held in served["parts"]
        # every contest with a row in its files, a row a delta replaced too
        if gone & {str(pk) for pk in held.get("held_contests", held["by_contest"])}
    }
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
        if all((folder / name).is_file() for name in writing.part_names(held))
    }


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
                writing.link(source / described["name"], folder / described["name"])
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
                writing.link(source / described["name"], folder / described["name"])
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
            writing.described(
                folder / names[name], name, len(ordered), None, built_at, contest=contest.pk
            )
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
        "parts_amended": plan["amended"],
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
            *(described for part in held for described in part_files(part)),
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


def part_files(part: dict) -> list[dict]:
    """A part's files, then its deltas' in order."""
    return [*part["files"], *(d for delta in part.get("deltas", []) for d in delta["files"])]


def whole_files(held: list[dict]) -> list[dict]:
    """The whole-registry download: the entries CSV as the parts' CSV rows (their deltas
    applied) one after another under one header (web/open_data.py streams it), its rows and size
    known from the parts'."""
    csvs = [d for part in held for d in part_files(part) if d["table"] == "entries.csv"]
    header = len(csv_header())
    return [
        {
            "name": "entries.csv",
            "rows": sum(part["entries"] for part in held),
            "bytes": header + sum(_csv_bytes(part, header) for part in held),
            "parts": len(held),
            # The parts' and deltas' checksums, digested: equal only when every file is.
            "etag": hashlib.sha256("".join(d["sha256"] for d in csvs).encode()).hexdigest(),
            "media_type": MEDIA_TYPES[".csv"],
            "holds": "Every part's entries.csv in id order under one header.",
        }
    ]


def _csv_bytes(part: dict, header: int) -> int:
    """The bytes of a part's live CSV rows (a part made before the deltas: its file's)."""
    if "csv_bytes" in part:
        return part["csv_bytes"]
    return next(d["bytes"] for d in part["files"] if d["table"] == "entries.csv") - header


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
