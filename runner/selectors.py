from django.db.models import QuerySet

from runner.models import RerunStatus, VerificationRun
from submissions.entries.selectors import is_organizer


def run_visible(run: VerificationRun, user) -> bool:
    """Organizers see every rerun, entrants the reruns of their own entries, the public the
    outcome of finished reruns of published entries."""
    submission = run.submission
    if is_organizer(user) or (user.is_authenticated and submission.owner_id == user.id):
        return True
    return submission.contest.results_are_public() and run.status == RerunStatus.SUCCEEDED


def runs_for_entry(submission, user) -> QuerySet[VerificationRun]:
    runs = submission.verification_runs.all()
    if is_organizer(user) or (user.is_authenticated and submission.owner_id == user.id):
        return runs
    return runs.filter(status=RerunStatus.SUCCEEDED)


def claimed_rows(submission) -> int:
    """The rows of the entry's own run: what a track's proportions are taken from."""
    return submission.rows or submission.contest.target_rows
