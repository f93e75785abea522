"""Versions of a contest's rules: every change of a rule field records the next version with the
change in words, and queues a re-check of the contest's entries under it (a Recheck row; the
caller sends it to the broker after the commit)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from submissions import tracks
from submissions.caches.compiled import compiled_instances, instances_of
from submissions.contests.rule_changes import RULE_FIELDS, rule_changes, snapshot_of
from submissions.contests.rules import RuleSet
from submissions.models import Contest, Recheck, RecheckStatus, RuleVersion


def contest_snapshot(contest: Contest) -> dict:
    return snapshot_of({name: getattr(contest, name) for name in RULE_FIELDS})


def rule_version_latest_key(contest_id: int) -> tuple:
    return ("rule-version-latest", contest_id)


def rule_version_latest(contest: Contest) -> RuleVersion | None:
    # Compiled once per process: every contest page built reads it.
    compiled = compiled_instances(
        rule_version_latest_key(contest.pk),
        lambda: RuleVersion.objects.filter(contest=contest).order_by("-number")[:1],
    )
    return next(iter(instances_of(compiled)), None)


@transaction.atomic
def contest_rules_record(*, contest: Contest, by=None) -> tuple[RuleVersion, Recheck | None]:
    """Record the contest's rules as a new version when they differ from the latest one, and
    queue a re-check of its entries under it. Returns the current version and the re-check
    (None when nothing changed or there is nothing to re-check)."""
    # Two changes saved at once would both number their version n+1: the contest row's lock
    # makes the second wait and compare with the first's.
    Contest.objects.select_for_update().filter(pk=contest.pk).values_list("pk").first()
    latest = rule_version_latest(contest)
    snapshot = contest_snapshot(contest)
    if latest is not None and latest.rules == snapshot:
        return latest, None
    version = RuleVersion.objects.create(
        contest=contest,
        number=latest.number + 1 if latest else 1,
        rules=snapshot,
        changes=rule_changes(latest.rules, snapshot) if latest else [],
        created_by=by if by is not None and by.is_authenticated else None,
    )
    return version, recheck_queue(version=version)


def rule_version_current(contest: Contest) -> RuleVersion:
    """The version an entry is judged under now: the latest, recorded if the contest has none
    (created before versions were kept, or by a bulk write that sends no signal)."""
    latest = rule_version_latest(contest)
    if latest is not None and latest.rules == contest_snapshot(contest):
        return latest
    return contest_rules_record(contest=contest)[0]


def recheck_queue(*, version: RuleVersion) -> Recheck | None:
    """A queued re-check of the contest's entries under `version`; None if it has none."""
    total = version.contest.submissions.count()
    if not total:
        return None
    return Recheck.objects.create(rule_version=version, contest=version.contest, total=total)


def recheck_active(contest: Contest) -> Recheck | None:
    return (
        Recheck.objects.filter(
            contest=contest, status__in=[RecheckStatus.QUEUED, RecheckStatus.RUNNING]
        )
        .select_related("rule_version")
        .order_by("-queued_at")
        .first()
    )


def version_caption(version: RuleVersion | None) -> str:
    """How a page names the rules a verdict was made under."""
    if version is None:
        return "checked before rule versions were kept"
    changed = timezone.localtime(version.created_at).strftime("%-d %b %Y")
    if version.number == 1 or not version.changes:
        return f"checked under rules v{version.number} (the contest's rules since {changed})"
    return (
        f"checked under rules v{version.number} (changed {changed}: {'; '.join(version.changes)})"
    )


def contest_rule_set(contest: Contest) -> RuleSet:
    return RuleSet(
        target_rows=contest.target_rows,
        rows_per_commit=contest.rows_per_commit,
        max_rows_per_insert=contest.max_rows_per_insert,
        report_every_rows=contest.report_every_rows,
        report_every_seconds=contest.report_every_seconds,
        indexes_from_start=contest.indexes_from_start,
        max_sockets=contest.max_sockets,
        max_cores=contest.max_cores,
        max_memory_gb=contest.max_memory_gb,
        max_drives=contest.max_drives,
        require_direct_attached=contest.require_direct_attached,
        raid_allowed=contest.raid_allowed,
        required_mysql_version=contest.required_mysql_version,
        preferred_os=contest.preferred_os,
        deadline=contest.deadline,
        timezone=contest.timezone,
        terminal_window_rows=contest.terminal_window_rows,
        track=tracks.track_rules(contest.track, contest.track_rules),
    )
