"""The home page's engine chart kept as it goes: the best average rate of an eligible entry per
contest, storage engine and month (EngineMonthBest), moved by each save and delete of an entry
(signals.py) so that the chart reads a few rows per engine and month, not every entry.

An entry's save raises its group's best when it beats it (one UPDATE); only an entry that held
its group's best and left it (deleted, made ineligible, slower, moved to another engine, month
or contest) has its group's best read again, from that contest's entries of that month."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.db.models.functions import TruncMonth
from django.utils import timezone

from submissions.models import EngineMonthBest, Submission

# What a group's best depends on: a save touching none of these leaves the chart as it was.
CHART_FIELDS = frozenset(
    {"contest", "contest_id", "storage_engine", "submitted_at", "eligible", "average_rate"}
)


@dataclass(frozen=True)
class Standing:
    """Where an entry counts on the chart: its group and its rate."""

    contest_id: int
    storage_engine: str
    month: date
    rate: float

    @property
    def group(self) -> dict:
        return {
            "contest_id": self.contest_id,
            "storage_engine": self.storage_engine,
            "month": self.month,
        }


def month_of(moment: datetime) -> date:
    """The month as TruncMonth reads it (the current time zone)."""
    return timezone.localtime(moment).date().replace(day=1)


def standing_of(*, contest_id, storage_engine, submitted_at, eligible, average_rate):
    """The entry's place on the chart, or None where it counts for nothing there."""
    if not eligible or not storage_engine or not average_rate:
        return None
    return Standing(contest_id, storage_engine, month_of(submitted_at), float(average_rate))


def entry_standing(entry: Submission) -> Standing | None:
    return standing_of(
        contest_id=entry.contest_id,
        storage_engine=entry.storage_engine,
        submitted_at=entry.submitted_at,
        eligible=entry.eligible,
        average_rate=entry.average_rate,
    )


def stored_standing(pk: int) -> Standing | None:
    """The entry's place as the database holds it (before a save changes it)."""
    row = (
        Submission.objects.filter(pk=pk)
        .values("contest_id", "storage_engine", "submitted_at", "eligible", "average_rate")
        .first()
    )
    return standing_of(**row) if row else None


def engine_best_follow(*, before: Standing | None, after: Standing | None) -> None:
    """Move the chart's groups from the entry's place `before` a change to `after` it."""
    if after is not None:
        _raise(after)
    left = before is not None and (
        after is None or before.group != after.group or after.rate < before.rate
    )
    if left:
        _read_again(before)


def _raise(standing: Standing) -> None:
    kept = EngineMonthBest.objects.filter(**standing.group)
    if kept.filter(best__lt=standing.rate).update(best=standing.rate) or kept.exists():
        return
    try:
        with transaction.atomic():
            EngineMonthBest.objects.create(**standing.group, best=standing.rate)
    except IntegrityError:  # another save made the group meanwhile
        kept.filter(best__lt=standing.rate).update(best=standing.rate)


def _read_again(standing: Standing) -> None:
    with transaction.atomic():
        # Locked: a save raising this group waits, then raises past what is read here.
        row = EngineMonthBest.objects.select_for_update().filter(**standing.group).first()
        if row is None or standing.rate < row.best:
            return  # another entry holds the group's best
        start = standing.month
        end = date(start.year + start.month // 12, start.month % 12 + 1, 1)
        zone = timezone.get_current_timezone()
        best = Submission.objects.filter(
            contest_id=standing.contest_id,
            storage_engine=standing.storage_engine,
            eligible=True,
            submitted_at__gte=datetime(start.year, start.month, 1, tzinfo=zone),
            submitted_at__lt=datetime(end.year, end.month, 1, tzinfo=zone),
        ).aggregate(best=Max("average_rate"))["best"]
        if best:
            row.best = best
            row.save(update_fields=["best"])
        else:
            row.delete()


def engine_bests_rebuild() -> int:
    """Every kept best made again from the entries, in one grouped read: after entries were
    written without the ORM's saves (a bench's fill by INSERT ... SELECT). Returns the groups."""
    groups = (
        Submission.objects.filter(eligible=True)
        .exclude(storage_engine="")
        .annotate(month=TruncMonth("submitted_at"))
        .values("contest_id", "storage_engine", "month")
        .annotate(best=Max("average_rate"))
    )
    rows = [
        EngineMonthBest(
            contest_id=group["contest_id"],
            storage_engine=group["storage_engine"],
            month=month_of(group["month"]),
            best=group["best"],
        )
        for group in groups
        if group["best"]
    ]
    with transaction.atomic():
        EngineMonthBest.objects.all().delete()
        EngineMonthBest.objects.bulk_create(rows)
    return len(rows)
