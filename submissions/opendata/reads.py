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
from django.db.models.expressions import RawSQL
from django.db.models.functions import Length
from django.urls import reverse

from submissions.contests.ranks import ranks_of
from submissions.entries.outcome import OUTCOME_FIELDS, outcome_of, outcome_public
from submissions.entries.trust import TRUST_SENTENCES, trust_columns, trust_of
from submissions.measures.costs import PER_ROW_COSTS
from submissions.measures.series import unpack_columns
from submissions.models import Contest, OpenDataChange, SampleSeries, Submission
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


def contest_ranks(contest: Contest) -> dict[int, int]:
    """{entry id: rank} of the contest's ranked entries: one window over them."""
    return ranks_of(contest=contest)


def published_entries(
    contests: list[Contest], ids: tuple[int, int], only: frozenset[int] | None = None
) -> Iterator[tuple[Contest, dict]]:
    """(contest, the entry's values) of every entry of `contests` whose id is in `ids` (first,
    last), and among `only` if given (a delta's), in id order (the index on the id: the part's
    rows alone, or those entries' alone, are read)."""
    by_id = {contest.pk: contest for contest in contests}
    if only is None:
        chosen = _entries(contests).filter(id__range=ids)
    else:  # by the primary key alone (the contest's index would read all its entries)
        chosen = Submission.objects.filter(id__in=sorted(i for i in only if ids[0] <= i <= ids[1]))
    values = chosen.order_by("id").values(*ENTRY_FIELDS, *trust_columns())
    for entry in values.iterator(chunk_size=ENTRY_BATCH):
        if entry["contest_id"] in by_id:  # an entry of a contest not public is not published
            yield by_id[entry["contest_id"]], entry


def logged_changes() -> list[tuple[int, int]]:
    """(log row, entry id) of every change logged and committed (models.OpenDataChange): the
    entries changed since the builds served read the log, whatever the registry's size."""
    return list(OpenDataChange.objects.order_by("id").values_list("id", "entry_id"))


def forget_changes(log_rows: list[int]) -> None:
    """Delete the log rows a build read, once that build is served: a change committed after
    the build read the log stays for the next one."""
    for start in range(0, len(log_rows), 10_000):
        OpenDataChange.objects.filter(id__in=log_rows[start : start + 10_000]).delete()


def ranked_changes(contests: list[Contest], entry_ids: set[int]) -> dict[int, dict]:
    """{contest id: {entry id: its last ranking change number (None on SQLite)}} of the entries
    among `entry_ids` ranked on their contest's board now, read by their ids (the primary key:
    O(the changes)) and judged as contests.rank_query.ranked_q judges."""
    if not entry_ids:
        return {}
    required = {
        contest.pk: [key.column for key in contest.track.ranking.order if key.required]
        for contest in contests
    }
    columns = sorted({column for names in required.values() for column in names})
    rows = Submission.objects.filter(pk__in=entry_ids).order_by()
    if connection.vendor == "postgresql":  # the column migration 0026 keeps (no model field)
        rows = rows.annotate(ranking_change=RawSQL("ranking_seq", ()))
        fields = ("id", "contest_id", "eligible", "ranking_change", *columns)
    else:
        fields = ("id", "contest_id", "eligible", *columns)
    ranked: dict[int, dict] = {}
    for row in rows.values(*fields):
        names = required.get(row["contest_id"])
        if names is not None and row["eligible"] and all(row[n] is not None for n in names):
            ranked.setdefault(row["contest_id"], {})[row["id"]] = row.get("ranking_change")
    return ranked


def contest_parts(contest_ids: list[int], part_ids: int) -> set[int]:
    """The parts holding an entry of these contests (a contest made public or renamed: every
    part holding one of its entries is built again), from the index on contest and id."""
    if not contest_ids:
        return set()
    ids = Submission.objects.filter(contest_id__in=contest_ids).values_list("id", flat=True)
    return {parts.part_of(entry_id, part_ids) for entry_id in ids.iterator(chunk_size=10_000)}


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
    entry_ids: set[int], ids: tuple[int, int], only: frozenset[int] | None = None
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """(entry id, its columns) of the entries among `entry_ids` that have a series, in id
    order, one unpacked at a time. An entry that arrived after the entries were read is not
    among the ids: the series table never holds an entry the entries table lacks. The packed
    series are fetched in groups of at most SERIES_FETCH_BYTES (sizes read first): few round
    trips for many small series, never many large ones at once."""
    # By the id range alone (the primary key): the entries' contests are already chosen in
    # `entry_ids` (joined on the contest, the planner read every entry of it).
    stored = SampleSeries.objects.filter(submission_id__gte=ids[0], submission_id__lte=ids[1])
    if only is not None:  # a delta's entries: their series alone, by the key
        stored = stored.filter(submission_id__in=sorted(only))
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
