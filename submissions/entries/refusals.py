"""Why the registry refuses an entry: each refusal names the form field to blame."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.utils import timezone

from submissions.models import Contest, Submission


class SubmissionRefused(Exception):
    """A submission the registry will not store; `field` names the form field to blame."""

    def __init__(self, message: str, field: str = "log"):
        super().__init__(message)
        self.field = field
        self.message = message


class LogTooLarge(SubmissionRefused):
    """A log refused for the work reading it would take (413): `setting` names the limit."""

    def __init__(self, message: str, setting: str):
        super().__init__(message, "log")
        self.setting = setting


class DuplicateLog(SubmissionRefused):
    def __init__(self, existing: Submission):
        super().__init__(
            f"This run was already submitted to this contest as entry #{existing.pk}.", "log"
        )
        self.existing = existing


class ContestClosed(SubmissionRefused):
    def __init__(self, contest: Contest):
        due = timezone.localtime(contest.deadline, ZoneInfo(contest.timezone)).strftime(
            "%d %b %Y %H:%M %Z"
        )
        super().__init__(f"{contest.title} closed on {due}; it takes no more entries.", "contest")
