"""A witnessed entry's seal verdicts as the registry's services read them back. Apart from
live/services.py so that submissions/services.py can import it without a cycle."""

from __future__ import annotations

from submissions.models import Submission
from submissions.rules import Status, Verdict


def verdicts_from_dicts(stored: list[dict]) -> list[Verdict]:
    return [
        Verdict(
            rule=v["rule"],
            status=Status(v["status"]),
            message=v["message"],
            line=v.get("line"),
            value=v.get("value"),
            limit=v.get("limit"),
        )
        for v in stored
    ]


def submission_witness_verdicts(submission: Submission) -> list[Verdict]:
    """The seal verdicts a streamed entry earned: the registry's receipt clock and the machine
    the run saw are not in the log, so a re-check keeps them as they were."""
    run = getattr(submission, "live_run", None)
    return verdicts_from_dicts(run.seal_verdicts) if run is not None else []
