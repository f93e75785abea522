"""An entrant's edits of an entry. Before the results are public an edit applies at once (kept
in the entry's history, re-checked). After, an edit that changes a figure or a verdict waits
as a PendingChange until an organizer approves it: the public sees the published entry until
then. Edits that change neither (a typo in the CPU model) apply at once."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from submissions.entries import checks as entry_checks
from submissions.entries import services
from submissions.entries.declaration import DECLARED_FIELDS
from submissions.models import ChangeStatus, PendingChange, Submission

# What the public compares of an entry before and after an edit.
FIGURE_FIELDS = (
    "rows", "elapsed_seconds", "average_rate", "terminal_rate", "seconds_to_target", "estimated",
    "eligible", "track_figures", "track_metric", "track_class",
)  # fmt: skip


@dataclass(frozen=True)
class EditOutcome:
    submission: Submission
    pending: PendingChange | None  # the change waiting for an organizer, or None: applied


def declaration_changes(submission: Submission, before: dict, after: dict) -> list[str]:
    """Each changed declared field as "memory (GB): 16 -> 32"."""
    labels = {field.name: field.verbose_name for field in Submission._meta.fields}
    for field in submission.contest.track.fields:
        labels[field.name] = field.label
    return [
        f"{labels.get(name, name)}: {_shown(before.get(name))} -> {_shown(after.get(name))}"
        for name in after
        if name in before and before.get(name) != after.get(name)
    ]


def _shown(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return f"{int(value)}"
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _effects(submission: Submission, declared: dict) -> list[str]:
    """The figures and verdicts the new declaration would change, judged without saving."""
    trial = Submission.objects.select_related("contest").get(pk=submission.pk)
    for name, value in declared.items():
        if name in DECLARED_FIELDS:
            setattr(trial, name, value)
    names = {field.name for field in trial.contest.track.fields}
    trial.track_declared = {
        **trial.track_declared,
        **{name: value for name, value in declared.items() if name in names},
    }
    checked = entry_checks.entry_check_stored(submission=trial)
    entry_checks.apply_check(trial, checked)
    effects = [
        f"{name.replace('_', ' ')}: {_shown(getattr(submission, name))} -> {_shown(getattr(trial, name))}"
        for name in FIGURE_FIELDS
        if getattr(submission, name) != getattr(trial, name)
    ]
    old = {verdict["rule"]: verdict for verdict in submission.verdicts}
    for verdict in trial.verdicts:
        was = old.get(verdict["rule"], {})
        if (was.get("status"), was.get("message")) != (verdict["status"], verdict["message"]):
            effects.append(
                f"verdict {verdict['rule']}: {verdict['status'].upper()}: {verdict['message']}"
            )
    return effects


def entry_edit(*, submission: Submission, declared: dict, by) -> EditOutcome:
    """Apply the owner's edit, or hold it for an organizer when the results are public and it
    changes a figure or a verdict (replacing a change that was still waiting)."""
    # A size no rerun can read is refused now, not held for an organizer to approve.
    services.declared_sizes_check({**entry_checks.entry_declared(submission), **declared})
    if not submission.contest.results_are_public():
        return EditOutcome(
            services.entry_update(submission=submission, declared=declared, by=by), None
        )
    before = entry_checks.entry_declared(submission)
    after = {**before, **{name: value for name, value in declared.items() if name in before}}
    changes = declaration_changes(submission, before, after)
    if not changes:
        return EditOutcome(submission, None)
    effects = _effects(submission, declared)
    if not effects:
        return EditOutcome(
            services.entry_update(submission=submission, declared=declared, by=by), None
        )
    with transaction.atomic():
        submission.pending_changes.filter(status=ChangeStatus.PENDING).update(
            status=ChangeStatus.SUPERSEDED, decided_at=timezone.now()
        )
        pending = PendingChange.objects.create(
            submission=submission,
            declared=_json_safe(declared),
            changes=changes,
            effects=effects,
            requested_by=by,
        )
    return EditOutcome(submission, pending)


def _json_safe(declared: dict) -> dict:
    return {
        name: value
        for name, value in declared.items()
        if isinstance(value, str | int | float | bool | list | dict) or value is None
    }


@transaction.atomic
def pending_change_approve(*, change: PendingChange, by) -> Submission:
    """Apply a waiting change: the entry's history names the entrant who asked and the
    organizer who approved."""
    locked = PendingChange.objects.select_for_update().get(pk=change.pk)
    if locked.status != ChangeStatus.PENDING:
        return locked.submission
    submission = Submission.objects.select_related("contest").get(pk=locked.submission_id)
    approver = getattr(by, "username", "an organizer")
    services.entry_update(
        submission=submission,
        declared=locked.declared,
        by=locked.requested_by,
        enforce_deadline=False,
        reason=f"approved by organizer {approver}",
    )
    locked.status, locked.decided_by, locked.decided_at = ChangeStatus.APPROVED, by, timezone.now()
    locked.save(update_fields=["status", "decided_by", "decided_at"])
    return submission


def pending_change_reject(*, change: PendingChange, by) -> None:
    PendingChange.objects.filter(pk=change.pk, status=ChangeStatus.PENDING).update(
        status=ChangeStatus.REJECTED, decided_by=by, decided_at=timezone.now()
    )


# --- the history page ----------------------------------------------------------------------

# Never shown to the public: the entrant's address. The name only when the entrant published it.
PRIVATE_FIELDS = {"email"}


@dataclass(frozen=True)
class HistoryItem:
    when: object
    who: str
    what: list[str]
    reason: str


def entry_history(
    *, submission: Submission, full: bool, records: list | None = None
) -> list[HistoryItem]:
    """The entry's changes, newest first: who, when, what (`full`: with the private fields,
    for its owner and organizers). `records`: its history records oldest first, each with its
    user, when read already (selectors.history_records)."""
    if records is None:
        records = list(submission.history.select_related("history_user").order_by("history_date"))
    hidden = (
        set() if full else PRIVATE_FIELDS | ({"entrant_name"} if not submission.publish else set())
    )
    labels = {field.name: field.verbose_name for field in Submission._meta.fields}
    items = []
    for previous, record in zip([None, *records], records, strict=False):
        if previous is None:
            what = ["submitted"]
        else:
            delta = record.diff_against(previous)
            what = [
                f"{labels.get(change.field, change.field)}: "
                + (
                    f"{_shown(change.old)} -> {_shown(change.new)}"
                    if change.field not in hidden
                    else "changed"
                )
                for change in delta.changes
            ]
            if not what:
                continue
        items.append(
            HistoryItem(
                record.history_date,
                _who(record, submission),
                what,
                record.history_change_reason or "",
            )
        )
    return items[::-1]


def _who(record, submission: Submission) -> str:
    user = record.history_user
    if user is None:
        return "the registry"
    if user.pk == submission.owner_id:
        return "the entrant"
    if user.is_staff:
        return f"organizer {user.username}"
    return user.username
