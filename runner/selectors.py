from django.db.models import QuerySet

from runner.models import RerunStatus, VerificationRun
from submissions.caches.compiled import PLACEHOLDER_ID, compiled_instances, for_id, instances_of
from submissions.entries.selectors import is_organizer


def run_visible(run: VerificationRun, user) -> bool:
    """Organizers see every rerun, entrants the reruns of their own entries, the public the
    outcome of finished reruns of published entries."""
    submission = run.submission
    if is_organizer(user) or (user.is_authenticated and submission.owner_id == user.id):
        return True
    return submission.contest.results_are_public() and run.status == RerunStatus.SUCCEEDED


def runs_for_entry(submission, user) -> list[VerificationRun]:
    """The entry's reruns this viewer sees (`run_visible`), newest first: a statement compiled
    once per process for any entry (the entry page's panel is built again at each version of
    its board)."""
    every = is_organizer(user) or (user.is_authenticated and submission.owner_id == user.id)

    def build() -> QuerySet[VerificationRun]:
        runs = VerificationRun.objects.filter(submission_id=PLACEHOLDER_ID)
        return runs if every else runs.filter(status=RerunStatus.SUCCEEDED)

    statement = compiled_instances(("entry-reruns", every), build)
    return instances_of(for_id(statement, submission.pk))


def claimed_rows(submission) -> int:
    """The rows of the entry's own run: what a track's proportions are taken from."""
    return submission.rows or submission.contest.target_rows
