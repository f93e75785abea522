"""How far the registry can vouch for an entry.

- verified: a verification rerun reproduced the claim (Submission.verified);
- witnessed: streamed as it ran, its clock agreeing and the declared machine seen;
- self-reported: an uploaded file, which anyone could have typed.
"""

from __future__ import annotations

VERIFIED = "verified"
WITNESSED = "witnessed"
SELF_REPORTED = "self-reported"
TRUST_LEVELS = (SELF_REPORTED, WITNESSED, VERIFIED)


def trust_level(*, verified: bool, witnessed: bool | None) -> str:
    if verified:
        return VERIFIED
    if witnessed:
        return WITNESSED
    return SELF_REPORTED


def entry_trust(submission) -> str:
    """The entry's level: its verification (a rerun) and its stream, as the live wing knows it."""
    from submissions.wings import entry_stream

    stream = entry_stream(submission)
    return trust_level(verified=submission.verified, witnessed=stream.witnessed if stream else None)
