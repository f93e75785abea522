from django.db.models import QuerySet

from runner.models import RerunKind, RerunStatus, VerificationRun
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


def verification_headline(submission) -> str | None:
    """The headline of the latest verification whose verdict is the entry's mark (reproduced,
    or shape only): the sentence its badge's tooltip repeats. None without one."""
    if not submission.verification:
        return None
    run = (
        VerificationRun.objects.filter(
            submission=submission,
            status=RerunStatus.SUCCEEDED,
            kind=RerunKind.VERIFICATION,
            verdict=submission.verification,
        )
        .order_by("-finished_at", "-pk")
        .only("result")
        .first()
    )
    found = run.result.get("headline") if run and isinstance(run.result, dict) else None
    return found if isinstance(found, str) and found else None
