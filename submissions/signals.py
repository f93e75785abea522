"""Any save or delete of what a contest page shows moves its board version on, whichever code
path made it (services, the admin, a shell). Bulk .update() calls bypass signals: the services
that use them call contest_board_changed themselves."""

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from submissions.models import CheckedVerdicts, Contest, ReferenceResult, Submission


@receiver([post_save, post_delete], sender=Submission)
@receiver([post_save, post_delete], sender=ReferenceResult)
def board_changed(sender, instance, **kwargs) -> None:
    from submissions.contests.ranks import contest_board_changed

    contest_board_changed(contest_id=instance.contest_id)


@receiver(post_save, sender=Contest)
def rules_changed(sender, instance: Contest, raw: bool = False, **kwargs) -> None:
    """Every save of a contest, whatever made it (the admin, an action, the API, a shell),
    records a new rule version when a rule changed and re-checks the entries in the background.
    The admin names who changed them (`_rules_changed_by`)."""
    if raw:  # loading a fixture
        return
    from submissions.contests.rule_versions import contest_rules_record
    from submissions.tasks import recheck_send

    _, recheck = contest_rules_record(
        contest=instance, by=getattr(instance, "_rules_changed_by", None)
    )
    if recheck is not None:
        transaction.on_commit(lambda: recheck_send(recheck.pk))


# The figures a verdict is kept beside, for its permanent link.
KEPT_FIGURES = (
    "rows", "elapsed_seconds", "seconds_to_target", "estimated", "terminal_rate", "average_rate",
)  # fmt: skip


@receiver(post_save, sender=Submission)
def verdicts_kept(sender, instance: Submission, raw: bool = False, **kwargs) -> None:
    """Whatever checked the entry (upload, edit, a background re-check, the admin), the verdicts
    of each rule version stay readable after newer rules judge it again."""
    fields = kwargs.get("update_fields")
    if raw or instance.rules_version_id is None or (fields and "verdicts" not in fields):
        return
    CheckedVerdicts.objects.update_or_create(
        submission=instance,
        rules_version_id=instance.rules_version_id,
        defaults={
            "verdicts": instance.verdicts,
            "eligible": instance.eligible,
            "ineligible_reason": instance.ineligible_reason,
            "figures": {name: getattr(instance, name) for name in KEPT_FIGURES},
            "checked_at": instance.checked_at,
        },
    )


def _moves_chart(instance: Submission, raw: bool, fields) -> bool:
    from submissions.board.engine_bests import CHART_FIELDS

    return not raw and (fields is None or bool(CHART_FIELDS & set(fields)))


@receiver(pre_save, sender=Submission)
def engine_best_before(sender, instance: Submission, raw: bool = False, **kwargs) -> None:
    """Where the entry stood on the home page's engine chart before this save."""
    from submissions.board.engine_bests import stored_standing

    if instance.pk is not None and _moves_chart(instance, raw, kwargs.get("update_fields")):
        instance._engine_best_before = stored_standing(instance.pk)


@receiver(post_save, sender=Submission)
def engine_best_saved(sender, instance: Submission, raw: bool = False, **kwargs) -> None:
    from submissions.board.engine_bests import engine_best_follow, entry_standing

    if _moves_chart(instance, raw, kwargs.get("update_fields")):
        before = instance.__dict__.pop("_engine_best_before", None)
        engine_best_follow(before=before, after=entry_standing(instance))


@receiver(post_delete, sender=Submission)
def engine_best_deleted(sender, instance: Submission, **kwargs) -> None:
    from submissions.board.engine_bests import engine_best_follow, entry_standing

    engine_best_follow(before=entry_standing(instance), after=None)
