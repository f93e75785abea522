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

# `make run`: the worker calibrates its host as it starts (its queue idle, no calibration yet),
# three runs of the demo claim at 1/10, about two minutes; a verification asked for meanwhile
# waits behind it in the queue and is judged with the host's own spreads.
RERUN_CALIBRATION_REPEATS = env.int("RERUN_CALIBRATION_REPEATS", default=3)
