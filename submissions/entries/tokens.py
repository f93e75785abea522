"""API tokens a user can see, revoke and that expire (API_TOKEN_DAYS; 0: never).

DRF's authtoken keeps one token per user. A wing's own tokens (the live wing's witness tokens)
join the account's list through `tokens_of` (submissions/wings.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from submissions.wings import wing_tokens


@dataclass(frozen=True)
class TokenListing:
    """What the account page and the API show of a token: never the key itself."""

    kind: str
    id: str
    prefix: str
    created: datetime
    expires_at: datetime | None
    expired: bool
    scope: str


def token_expires_at(created: datetime) -> datetime | None:
    days = settings.API_TOKEN_DAYS
    return created + timedelta(days=days) if days else None


def token_expired(token: Token, now: datetime | None = None) -> bool:
    expires_at = token_expires_at(token.created)
    return expires_at is not None and (now or timezone.now()) >= expires_at


class ExpiringTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise AuthenticationFailed(
                "This token has expired: ask for a new one at /api/auth/token/."
            )
        return user, token


@transaction.atomic
def api_token_issue(*, user) -> Token:
    """The user's token, a new one when there is none or it has expired."""
    token = Token.objects.select_for_update().filter(user=user).first()
    if token is not None and token_expired(token):
        token.delete()
        token = None
    return token or Token.objects.create(user=user)


def api_token_revoke(*, user) -> bool:
    """Revoke the user's API token. Returns whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def tokens_of(user) -> list[TokenListing]:
    now = timezone.now()
    listed = [
        TokenListing(
            kind="api",
            id="api",
            prefix=token.key[:6],
            created=token.created,
            expires_at=token_expires_at(token.created),
            expired=token_expired(token, now),
            scope="the REST API",
        )
        for token in Token.objects.filter(user=user)
    ]
    # A wing's own tokens (the live wing's witness tokens) join the list.
    return listed + wing_tokens(user)
