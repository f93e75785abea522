"""Any save or delete of what a contest page shows moves its board version on, whichever code
path made it (services, the admin, a shell). Bulk .update() calls bypass signals: the services
that use them call contest_board_changed themselves."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from submissions.models import ReferenceResult, Submission


@receiver([post_save, post_delete], sender=Submission)
@receiver([post_save, post_delete], sender=ReferenceResult)
def board_changed(sender, instance, **kwargs) -> None:
    from submissions.services import contest_board_changed

    contest_board_changed(contest_id=instance.contest_id)
