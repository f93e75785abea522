"""`make test`: the real PostgreSQL, as in production."""

from .base import *  # noqa: F403
from .base import env

SECRET_KEY = "test-only-not-secret"  # noqa: S105 - the test settings only  # nosec B105
DATABASES = {
    "default": env.db("TEST_DATABASE_URL", default="postgresql://postgres@127.0.0.1:5432/iibench"),
}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Static files come from the finders in development; only production collects them.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True

# The tests keep the judge's meaning without a calibrated host: the fixtures' spreads stand in
# (each verdict says so), and no worker calibrates on its own (a test calibrates when it means to).
RERUN_FIXTURE_SPREADS = env.bool("RERUN_FIXTURE_SPREADS", default=True)
RERUN_CALIBRATE_WHEN_IDLE = env.bool("RERUN_CALIBRATE_WHEN_IDLE", default=False)
# A verification's reference runs (issue 45) cost a second private server and a run before each
# repeat, and its CPU weight group changes how the benchmark and its server share the cores: the
# test that means them turns both on (runner/tests/verdicts/test_busy_host_verification.py); the
# other verification tests keep the figures their fixtures were measured with (a calibration
# always runs its references).
RERUN_REFERENCE_RUNS = env.bool("RERUN_REFERENCE_RUNS", default=False)
RERUN_CPU_WEIGHT = env.bool("RERUN_CPU_WEIGHT", default=False)
