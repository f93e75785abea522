"""The background re-check of a contest's entries under a new version of its rules: a Recheck
row claimed with a conditional UPDATE, a heartbeat while it runs, progress the organizer sees,
and a sweep that re-sends one the broker lost or whose worker died."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from submissions.contests import ranks as contest_ranks
from submissions.contests import reference_rows
from submissions.entries import services
from submissions.models import Recheck, RecheckStatus, RuleVersion, Submission

logger = logging.getLogger(__name__)


def recheck_claim(*, recheck_id: int) -> bool:
    """Take a queued re-check. A message delivered twice finds it taken and does nothing."""
    now = timezone.now()
    return (
        Recheck.objects.filter(pk=recheck_id, status=RecheckStatus.QUEUED).update(
            status=RecheckStatus.RUNNING, started_at=now, heartbeat_at=now
        )
        == 1
    )


def _entries_to_check(recheck: Recheck) -> list[int]:
    # Entries judged under another version, or under this one before the re-check was asked
    # for: a re-check sent again after its worker died carries on where it stopped.
    stale = ~Q(rules_version=recheck.rule_version) | Q(rules_version__isnull=True)
    stale |= Q(checked_at__isnull=True) | Q(checked_at__lt=recheck.queued_at)
    entries = Submission.objects.filter(contest_id=recheck.contest_id).filter(stale)
    return list(entries.order_by("pk").values_list("pk", flat=True))


def _superseded(recheck: Recheck) -> bool:
    return RuleVersion.objects.filter(
        contest_id=recheck.contest_id, number__gt=recheck.rule_version.number
    ).exists()


def recheck_execute(*, recheck_id: int) -> Recheck:
    """Judge each entry not yet judged under the re-check's version, ranking once at the end.
    Stops (superseded) when a newer version exists: its own re-check judges them all."""
    recheck = Recheck.objects.select_related("rule_version", "contest").get(pk=recheck_id)
    version = recheck.rule_version
    todo = _entries_to_check(recheck)
    total = Submission.objects.filter(contest_id=recheck.contest_id).count()
    Recheck.objects.filter(pk=recheck.pk).update(total=total, checked=total - len(todo))
    for pk in todo:
        if _superseded(recheck):
            return _finish(
                recheck, RecheckStatus.SUPERSEDED, "Newer rules came: re-checked under them."
            )
        with transaction.atomic():
            # Locked, so an entrant's edit saved meanwhile is not overwritten by a stale copy.
            entry = (
                Submission.objects.select_for_update(of=("self",))
                .select_related("contest")
                .filter(pk=pk)
                .first()
            )
            readable = services.entry_recheck(submission=entry, version=version) if entry else True
        Recheck.objects.filter(pk=recheck.pk).update(
            checked=F("checked") + 1,
            unreadable=F("unreadable") + (0 if readable else 1),
            heartbeat_at=timezone.now(),
        )
    reference_rows.reference_results_refigure(contest=recheck.contest)
    contest_ranks.contest_board_changed(contest_id=recheck.contest_id)
    return _finish(recheck, RecheckStatus.DONE, "")


def _finish(recheck: Recheck, status: str, message: str) -> Recheck:
    Recheck.objects.filter(pk=recheck.pk).update(
        status=status, finished_at=timezone.now(), message=message[:500]
    )
    recheck.refresh_from_db()
    return recheck


def recheck_fail(*, recheck_id: int, message: str) -> None:
    Recheck.objects.filter(pk=recheck_id, status=RecheckStatus.RUNNING).update(
        status=RecheckStatus.FAILED, finished_at=timezone.now(), message=message[:500]
    )


def rechecks_to_resend(now=None) -> list[int]:
    """Re-checks a sweep sends again: queued for a while (the broker lost the message, or it
    was down when it was sent) or running with a heartbeat long gone (the worker died; put
    back in the queue and carried on from where it stopped)."""
    now = now or timezone.now()
    timeout = timedelta(seconds=settings.RECHECK_STALE_SECONDS)
    dead = Recheck.objects.filter(status=RecheckStatus.RUNNING, heartbeat_at__lt=now - timeout)
    dead.update(status=RecheckStatus.QUEUED)
    lost = Recheck.objects.filter(
        status=RecheckStatus.QUEUED, queued_at__lt=now - timeout, sent_count__lt=50
    )
    return list(lost.values_list("pk", flat=True))


def recheck_sent(*, recheck_id: int) -> None:
    Recheck.objects.filter(pk=recheck_id).update(sent_count=F("sent_count") + 1)
