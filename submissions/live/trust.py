"""How far the registry can vouch for an entry. Pure: no Django.

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
