"""What the open dataset reads of the registry: the contests whose results are public, their
entries (every entry of such a contest is published; an embargoed contest's drafts are never
read), and the entries' series one at a time, so a build's memory is a batch of entries and one
series whatever the registry's size."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterator
from datetime import datetime

import numpy as np
from django.db import connection
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.urls import reverse

from submissions.contests.ranks import ranks_of
from submissions.entries.outcome import OUTCOME_FIELDS, outcome_of, outcome_public
from submissions.entries.trust import TRUST_SENTENCES, trust_columns, trust_of
from submissions.measures.costs import PER_ROW_COSTS
from submissions.measures.series import unpack_columns
from submissions.models import Contest, SampleSeries, Submission
from submissions.opendata import parts

ENTRY_BATCH = 1_000
SERIES_FETCH_BYTES = 16 << 20  # packed series one round trip brings, at most (one larger alone)

ENTRY_FIELDS = (
    "id", "contest_id", "entrant_name", "publish", "submitted_at", "edited_at", "cpu_model",
    "sockets", "cores", "cpu_ghz", "memory_gb", "drives", "drive_kind", "raid_level",
    "direct_attached", "os", "server_family", "server_version", "storage_engine",
    "storage_engine_version", "engine", "solution_description", "server_config",
    "track_declared", "log", "log_format", "rows", "elapsed_seconds", "elapsed_source",
    "average_rate", "terminal_rate", "terminal_window_rows", "terminal_window_start_row",
    "terminal_window_basis", "seconds_to_target", "estimated", "estimate_basis", "excerpt",
    "track_figures", "track_metric", "track_class", "db_size_bytes",
    *(cost.figure for cost in PER_ROW_COSTS),
    "eligible", "ineligible_reason", "checked_at", "verdicts", *OUTCOME_FIELDS, "demo",
    "rules_version__number", "series__count",
)  # fmt: skip
COPIED = frozenset(ENTRY_FIELDS) - {
    "contest_id", "entrant_name", "publish", "track_declared", "track_figures", "log",
    "verdicts", "rules_version__number", "series__count", *OUTCOME_FIELDS,
}  # fmt: skip


def public_contests(now: datetime) -> list[Contest]:
    """The contests whose results are public at `now`: only their entries are in the dataset."""
    return list(Contest.objects.filter(results_published_at__lte=now).order_by("pk"))


def registry_version(contests: list[Contest]) -> str:
    """What the dataset reflects, in 16 hex digits: which contests are public and each one's
    board version, which every change of an entry, a verdict, a rank or a contest moves on
    (contests.ranks.contest_board_changed). Equal versions: the same dataset."""
    stamp = json.dumps([[contest.pk, contest.board_version] for contest in contests])
    return hashlib.sha256(stamp.encode()).hexdigest()[:16]


def current_registry_version(now: datetime) -> str:
    return registry_version(public_contests(now))


def _entries(contests: list[Contest]) -> QuerySet[Submission]:
    return Submission.objects.filter(contest__in=[contest.pk for contest in contests])


def registry_ranks(contests: list[Contest]) -> dict[int, int]:
    """{entry id: rank} of every ranked entry of `contests`: one window per contest."""
    ranks: dict[int, int] = {}
    for contest in contests:
        ranks.update(ranks_of(contest=contest))
    return ranks


def published_entries(
    contests: list[Contest], ids: tuple[int, int], ranks: dict[int, int]
) -> Iterator[tuple[Contest, dict]]:
    """(contest, the entry's values) of every entry of `contests` whose id is in `ids` (first,
    last), in id order, each with its rank from `ranks` (registry_ranks)."""
    by_id = {contest.pk: contest for contest in contests}
    values = (
        _entries(contests)
        .filter(id__range=ids)
        .order_by("id")
        .values(*ENTRY_FIELDS, *trust_columns())
    )
    for entry in values.iterator(chunk_size=ENTRY_BATCH):
        entry["rank"] = ranks.get(entry["id"])
        yield by_id[entry["contest_id"]], entry


def part_fingerprints(
    contests: list[Contest], part_ids: int, ranks: dict[int, int]
) -> dict[int, parts.Fingerprint]:
    """{part: fingerprint} of every part holding a published entry (parts.py): its entries'
    rows as stored, with the contest's names, the rule version, the stream's flag and the
    series, and their ranks. On PostgreSQL a row stands for its version by its xmin and ctid
    (the transaction that wrote it and where: any UPDATE, by whatever path, writes a new
    version elsewhere, even two in one transaction; a dump restored or a VACUUM FULL gives rows
    new ones, so the next build rebuilds them), and the database digests them, one aggregate
    per part, no row's text read; elsewhere every column is read and digested here."""
    rows = (
        _rows_digests_postgresql(contests, part_ids)
        if connection.vendor == "postgresql"
        else _rows_digests_python(contests, part_ids)
    )
    ranked: dict[int, list[tuple[int, int]]] = {}
    for entry_id, rank in ranks.items():
        ranked.setdefault(parts.part_of(entry_id, part_ids), []).append((entry_id, rank))
    return {
        part: parts.Fingerprint(rows=digest, ranks=parts.ranks_digest(ranked.get(part, [])))
        for part, digest in rows.items()
    }


def _rows_digests_postgresql(contests: list[Contest], part_ids: int) -> dict[int, str]:
    live = Submission._meta.get_field("live_run").related_model
    rules = Submission._meta.get_field("rules_version")
    table = Submission._meta.db_table
    sql = (
        # Table and column names from the models; values are parameters.
        # A sum of the rows' 64-bit hashes with their count: no sort (an ordered aggregate
        # spilled 100,000 rows to disk), and any row changed, added or gone changes it.
        "SELECT entry.id / %s, count(*)::text || ':' || sum(hashtextextended(concat_ws("  # noqa: S608  # nosec B608
        "'|', entry.id, entry.xmin, entry.ctid, contest.slug, contest.title, contest.workload, "
        "rules.number, live.witnessed, series.xmin, series.ctid), 0)::numeric)::text "
        f"FROM {table} AS entry JOIN {Contest._meta.db_table} AS contest "
        "ON contest.id = entry.contest_id "
        f"LEFT JOIN {rules.related_model._meta.db_table} AS rules "
        f"ON rules.id = entry.{rules.column} "
        f"LEFT JOIN {live._meta.db_table} AS live ON live.submission_id = entry.id "
        f"LEFT JOIN {SampleSeries._meta.db_table} AS series ON series.submission_id = entry.id "
        "WHERE entry.contest_id = ANY(%s) GROUP BY 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [part_ids, [contest.pk for contest in contests]])
        return {int(part): digest for part, digest in cursor.fetchall()}


def _rows_digests_python(contests: list[Contest], part_ids: int) -> dict[int, str]:
    """The same, read row by row (SQLite: correct, slower)."""
    fields = (*ENTRY_FIELDS, "updated_at", "contest__slug", "contest__title", "contest__workload")
    digests: dict[int, hashlib._Hash] = {}
    values = _entries(contests).order_by("id").values_list(*fields)
    for row in values.iterator(chunk_size=ENTRY_BATCH):
        part = parts.part_of(row[0], part_ids)
        digests.setdefault(part, hashlib.sha256()).update(repr(row).encode())
    return {part: digest.hexdigest()[:32] for part, digest in digests.items()}


def entry_row(contest: Contest, entry: dict) -> dict:
    """An entry as the dataset's entries table has it (tables.ENTRY_COLUMNS)."""
    outcome = outcome_of(entry)
    trust = trust_of(entry)
    series_reports = entry["series__count"] or 0
    row = {name: entry[name] for name in COPIED}
    row.update(
        contest=contest.slug,
        contest_title=contest.title,
        track=contest.workload,
        entrant=entry["entrant_name"] if entry["publish"] else "Anonymous entrant",
        track_declared=json.dumps(entry["track_declared"], sort_keys=True),
        track_figures=json.dumps(entry["track_figures"], sort_keys=True),
        rules_version=entry["rules_version__number"],
        rank=entry["rank"],
        **outcome_public(outcome),
        verdicts_failed=sum(1 for verdict in entry["verdicts"] if verdict.get("status") == "fail"),
        trust=trust,
        trust_means=TRUST_SENTENCES[trust],
        series_reports=series_reports,
        page=_link("submission_detail", entry["id"]),
        log_url=_link("submission_log", entry["id"]) if entry["log"] else "",
        samples_url=_link("api_samples", entry["id"]) if series_reports else "",
    )
    return row


# An id no entry has, whose digits stand for the entry's in a path reversed once per URL name
# (reverse() cost a third of a build's Python time at three links per entry).
_PLACEHOLDER = 987654321987


@functools.cache
def _link_pattern(name: str) -> str:
    return reverse(name, args=[_PLACEHOLDER])


def _link(name: str, entry_id: int) -> str:
    return _link_pattern(name).replace(str(_PLACEHOLDER), str(entry_id))


def published_series(
    contests: list[Contest], entry_ids: set[int], ids: tuple[int, int]
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """(entry id, its columns) of the entries among `entry_ids` that have a series, in id
    order, one unpacked at a time. An entry that arrived after the entries were read is not
    among the ids: the series table never holds an entry the entries table lacks. The packed
    series are fetched in groups of at most SERIES_FETCH_BYTES (sizes read first): few round
    trips for many small series, never many large ones at once."""
    stored = SampleSeries.objects.filter(
        submission__contest__in=[contest.pk for contest in contests],
        submission_id__gte=ids[0],
        submission_id__lte=ids[1],
    )
    # LENGTH of a bytea (PostgreSQL) or a BLOB (SQLite) counts its bytes.
    sizes = stored.annotate(packed_bytes=Length("columns")).order_by("submission_id")
    group: list[int] = []
    group_bytes = 0
    for entry_id, size in sizes.values_list("submission_id", "packed_bytes").iterator(
        chunk_size=ENTRY_BATCH
    ):
        if entry_id not in entry_ids:
            continue
        if group and group_bytes + (size or 0) > SERIES_FETCH_BYTES:
            yield from _unpacked(group)
            group, group_bytes = [], 0
        group.append(entry_id)
        group_bytes += size or 0
    yield from _unpacked(group)


def _unpacked(entry_ids: list[int]) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    if not entry_ids:
        return
    packed = dict(
        SampleSeries.objects.filter(submission_id__in=entry_ids).values_list(
            "submission_id", "columns"
        )
    )
    for entry_id in entry_ids:
        blob = packed.pop(entry_id, None)
        if blob is not None:  # deleted meanwhile
            yield entry_id, unpack_columns(bytes(blob))
