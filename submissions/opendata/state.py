"""When the open dataset is built, and what the page and the API say of it.

A change of the registry moves a public contest's board version on (or makes a contest public):
the registry's version (reads.registry_version) then differs from the one the build served
reflects, and the dataset is stale. On the upload's path the database's triggers log the entry
changed (models.OpenDataChange, one row), which tells the build which part to write. The sweep
(`open_dataset_refresh`, a Celery task the beat sends every OPEN_DATA_SWEEP_SECONDS) builds
when the dataset is stale, no build is running and the last one started at least
OPEN_DATA_MIN_INTERVAL_SECONDS ago: a burst of uploads costs one build, and a build writes only
the parts holding what changed (build.py, parts.py) and deletes the log rows it read once it
is served. Two workers never build
at once: the build is claimed with a conditional UPDATE of the one state row. The build served
stays served until the new one is complete."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from submissions.models import Contest, OpenDataset
from submissions.opendata import build, reads

logger = logging.getLogger(__name__)

ROW = 1
NONE, CURRENT, DUE, BUILDING = "none", "current", "due", "building"


def dataset_row() -> OpenDataset:
    row, _ = OpenDataset.objects.get_or_create(pk=ROW)
    return row


@dataclass(frozen=True)
class DatasetStatus:
    """What the page, the API and the downloads say: the build served (its manifest, or {}),
    and whether a newer one is running (BUILDING), waiting for its turn (DUE) or not needed."""

    manifest: dict
    built_at: datetime | None
    state: str
    building_since: datetime | None
    retry_after: int  # seconds until a newer build is likely served (0: none coming)
    last_error: str

    @property
    def words(self) -> str:
        if self.state == BUILDING:
            return f"A newer build is being made (started {self.building_since:%Y-%m-%d %H:%M:%S} UTC)."
        if self.state == DUE:
            return f"The registry changed since this build: a newer one starts within {self.retry_after} s."
        if self.state == CURRENT:
            return "Up to date with the registry."
        return f"Not built yet: the background worker builds it within about {self.retry_after} s."


def open_dataset_status(now: datetime | None = None) -> DatasetStatus:
    now = now or timezone.now()
    row = dataset_row()
    running = _running(row, now)
    stale = not _served_is_current(row, now)
    if running:
        state, wait = BUILDING, _build_seconds(row) - (now - row.building_since).total_seconds()
    elif stale:
        # Never built (NONE) or built from an older registry (DUE): the sweep builds it next.
        state = DUE if row.manifest else NONE
        wait = _next_start(row, now) + _build_seconds(row)
    else:
        state, wait = CURRENT, 0
    return DatasetStatus(
        manifest=row.manifest,
        built_at=row.built_at,
        state=state,
        building_since=row.building_since if running else None,
        retry_after=max(5, round(wait)) if state != CURRENT else 0,
        last_error=row.last_error,
    )


def _served_is_current(row: OpenDataset, now: datetime) -> bool:
    """The build served reflects the registry now, cut in parts of today's width (a build
    made before the dataset had parts or its change log, or at another width, is rebuilt whole)."""
    return (
        bool(row.manifest)
        and row.manifest.get("part_ids") == settings.OPEN_DATA_PART_IDS
        and row.manifest.get("change_log") == build.CHANGE_LOG
        and reads.current_registry_version(now) == row.registry_version
    )


def _running(row: OpenDataset, now: datetime) -> bool:
    timeout = timedelta(seconds=settings.OPEN_DATA_BUILD_TIMEOUT_SECONDS)
    return row.building_since is not None and now - row.building_since < timeout


def _build_seconds(row: OpenDataset) -> float:
    return float(row.manifest.get("build_seconds", 60)) if row.manifest else 60.0


def _next_start(row: OpenDataset, now: datetime) -> float:
    """Seconds until the sweep may start a build: the debounce, then the sweep's period."""
    since = (now - row.started_at).total_seconds() if row.started_at else float("inf")
    return max(0.0, settings.OPEN_DATA_MIN_INTERVAL_SECONDS - since) + (
        settings.OPEN_DATA_SWEEP_SECONDS
    )


def build_claim(now: datetime) -> bool:
    """Claim the next build: none running (or one past its timeout: its worker died), and the
    last one started at least the debounce ago. One UPDATE, so two sweeps never both win."""
    dataset_row()
    timeout = now - timedelta(seconds=settings.OPEN_DATA_BUILD_TIMEOUT_SECONDS)
    debounce = now - timedelta(seconds=settings.OPEN_DATA_MIN_INTERVAL_SECONDS)
    claimed = (
        OpenDataset.objects.filter(pk=ROW)
        .filter(Q(building_since__isnull=True) | Q(building_since__lt=timeout))
        .filter(Q(started_at__isnull=True) | Q(started_at__lte=debounce))
        .update(building_since=now, started_at=now)
    )
    return claimed == 1


def open_dataset_refresh(*, now: datetime | None = None) -> str:
    """Build the dataset if the registry changed since the build served and it is this call's
    turn; what happened, in a word: "current", "waiting" (the debounce, or a build running)
    or "built"."""
    now = now or timezone.now()
    row = dataset_row()
    if _served_is_current(row, now):
        return "current"
    if not build_claim(now):
        return "waiting"
    try:
        manifest, log_rows = build.build_dataset(built_at=now, served=row.manifest)
    except Exception as error:
        OpenDataset.objects.filter(pk=ROW).update(
            building_since=None, last_error=f"{type(error).__name__}: {error}"[:500]
        )
        raise
    previous = row.manifest.get("build", "")
    OpenDataset.objects.filter(pk=ROW).update(
        manifest=manifest,
        built_at=now,
        registry_version=manifest["registry_version"],
        building_since=None,
        last_error="",
    )
    reads.forget_changes(log_rows)  # the build served reflects them
    build.remove_builds_except({manifest["build"], previous})
    logger.info(
        "Open dataset %s built: %s entries in %s s, parts rebuilt %s, %s kept, dropped %s, ranks rewritten %s",
        manifest["build"],
        sum(contest["entries"] for contest in manifest["contests"]),
        manifest["build_seconds"],
        manifest["parts_rebuilt"],
        manifest["parts_kept"],
        manifest["parts_dropped"],
        manifest["ranks_rewritten"],
    )
    return "built"


def contests_still_public(manifest: dict, now: datetime | None = None) -> bool:
    """Every contest the build holds is still public: an organizer who put a contest's results
    back under embargo makes the build unservable until the next one leaves them out."""
    ids = [contest["id"] for contest in manifest.get("contests", [])]
    now = now or timezone.now()
    return not Contest.objects.filter(pk__in=ids).exclude(results_published_at__lte=now).exists()
