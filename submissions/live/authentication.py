"""`Authorization: Bearer iiw_...`: a witness token, accepted by the live endpoints only, so a
token that leaks from a benchmark machine can stream runs into one contest and nothing else."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from submissions.live.models import WitnessToken
from submissions.live.services import token_hash


class WitnessTokenAuthentication(BaseAuthentication):
    keyword = b"bearer"

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if len(parts) != 2 or parts[0].lower() != self.keyword:
            return None
        key = parts[1].decode(errors="replace")
        token = (
            WitnessToken.objects.select_related("user", "contest")
            .filter(key_hash=token_hash(key))
            .first()
        )
        if token is None or not token.user.is_active:
            raise AuthenticationFailed("Unknown witness token.")
        if not token.usable(timezone.now()):
            raise AuthenticationFailed(
                "This witness token was revoked or has expired: make a new one."
            )
        return token.user, token

    def authenticate_header(self, request) -> str:
        return "Bearer"


class WitnessTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema names the witness token."""

    target_class = WitnessTokenAuthentication
    name = "witnessToken"

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A witness token (iiw_...): streams runs into one contest only.",
        }
