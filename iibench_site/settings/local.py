"""`make run`: the embedded default (SQLite under var/, filesystem broker) unless the
environment names a database or Redis."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="local-development-only-not-secret")

# Static files come from the finders in development; only production collects them.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True

# The leaderboard's covering index (INCLUDE columns) is a PostgreSQL feature; SQLite, the
# embedded default, simply builds the plain index.
SILENCED_SYSTEM_CHECKS = ["models.W040"]
