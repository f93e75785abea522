"""What the open dataset reads of the registry: the contests whose results are public, their
entries (every entry of such a contest is published; an embargoed contest's drafts are never
read), and the entries' series one at a time, so a build's memory is a batch of entries and one
series whatever the registry's size."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime

import numpy as np
from django.db.models import QuerySet
from django.urls import reverse

from submissions.contests.ranks import ranks_of
from submissions.entries.trust import TRUST_SENTENCES, trust_level
from submissions.measures.costs import PER_ROW_COSTS
from submissions.measures.series import unpack_columns
from submissions.models import Contest, SampleSeries, Submission

ENTRY_BATCH = 1_000
SERIES_CHUNK = 4  # packed series a database round trip brings (each up to tens of MB)

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
    "eligible", "ineligible_reason", "checked_at", "verdicts", "verified", "verification", "demo",
    "rules_version__number", "series__count",
    # The live wing's stream, read as the board reads it (entries/trust.py): its old name.
    "live_run__witnessed",
)  # fmt: skip
COPIED = frozenset(ENTRY_FIELDS) - {
    "contest_id", "entrant_name", "publish", "track_declared", "track_figures", "log",
    "verdicts", "rules_version__number", "series__count", "live_run__witnessed",
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


def published_entries(contests: list[Contest]) -> Iterator[tuple[Contest, dict]]:
    """(contest, the entry's values) of every entry of `contests`, one contest after another,
    each contest's ranks read once (one window over its ranked entries)."""
    by_id = {contest.pk: contest for contest in contests}
    ranks: dict[int, int] = {}
    current = None
    values = _entries(contests).order_by("contest_id", "id").values(*ENTRY_FIELDS)
    for entry in values.iterator(chunk_size=ENTRY_BATCH):
        contest = by_id[entry["contest_id"]]
        if contest.pk != current:
            current, ranks = contest.pk, ranks_of(contest=contest)
        entry["rank"] = ranks.get(entry["id"])
        yield contest, entry


def entry_row(contest: Contest, entry: dict) -> dict:
    """An entry as the dataset's entries table has it (tables.ENTRY_COLUMNS)."""
    trust = trust_level(verified=entry["verified"], streamed=entry["live_run__witnessed"])
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
        verdicts_failed=sum(1 for verdict in entry["verdicts"] if verdict.get("status") == "fail"),
        trust=trust,
        trust_means=TRUST_SENTENCES[trust],
        series_reports=series_reports,
        page=reverse("submission_detail", args=[entry["id"]]),
        log_url=reverse("submission_log", args=[entry["id"]]) if entry["log"] else "",
        samples_url=reverse("api_samples", args=[entry["id"]]) if series_reports else "",
    )
    return row


def published_series(
    contests: list[Contest], entry_ids: set[int]
) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """(entry id, its columns) of the entries among `entry_ids` that have a series, in id
    order, one unpacked at a time. An entry that arrived after the entries were read is not
    among the ids: the series table never holds an entry the entries table lacks."""
    packed = (
        SampleSeries.objects.filter(submission__contest__in=[contest.pk for contest in contests])
        .order_by("submission_id")
        .values_list("submission_id", "columns")
    )
    for entry_id, blob in packed.iterator(chunk_size=SERIES_CHUNK):
        if entry_id in entry_ids:
            yield entry_id, unpack_columns(bytes(blob))
