"""Settings shared by every environment; everything that varies comes from the environment."""

import tempfile
from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "simple_history",
    "submissions",
    "submissions.live",
    "runner",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "iibench_site.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "iibench_site.middleware.FreedMemoryMiddleware",
    "submissions.web.middleware.UploadSizeLimitMiddleware",
    # A NUL in a cookie or the Authorization header: before the session or a token is read.
    "submissions.web.text_input.TextHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A NUL in the address or a query parameter: refused before any view reads it.
    "submissions.web.text_input.TextInputMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "iibench_site.middleware.ContentSecurityPolicyMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Log-in brute force: after 5 failures for a username from an address, that pair is locked out
# for 15 minutes (the web form, the admin and the API token endpoint alike).
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# Proxies in front of the site that append to X-Forwarded-For (nginx in the compose file: 1);
# the lockout then counts per client address, not per proxy.
BEHIND_PROXIES = env.int("BEHIND_PROXIES", default=0)
AXES_CLIENT_IP_CALLABLE = "iibench_site.client_address.client_address"
AXES_USERNAME_CALLABLE = "iibench_site.client_address.login_username"

ROOT_URLCONF = "iibench_site.urls"
WSGI_APPLICATION = "iibench_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The embedded default keeps `make run` working with no server at all.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'iibench.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# SQLite, the embedded default, with two jobs at once (a stream appending, a rerun judging):
# WAL lets readers go on beside the one writer; a write transaction takes the write lock when
# it begins (IMMEDIATE), so two never both read then both want to write, which SQLite answers
# with "database is locked" at once, whatever the timeout; and a writer waits its turn for up
# to SQLITE_BUSY_TIMEOUT_SECONDS instead of failing.
SQLITE_BUSY_TIMEOUT_SECONDS = env.int("SQLITE_BUSY_TIMEOUT_SECONDS", default=30)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
            "transaction_mode": "IMMEDIATE",
            "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
        }
    )
# What a 503 tells a client to wait while the database is down.
DATABASE_RETRY_AFTER_SECONDS = env.int("DATABASE_RETRY_AFTER_SECONDS", default=15)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=str(VAR_DIR / "staticfiles"))
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
]
# Files browsers ask for at the site's root (/favicon.ico: pages that do not link
# static/favicon.svg, as the admin's), served by whitenoise from here.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
MEDIA_ROOT = env.path("MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = "/media/"

# Uploads: the compressed or plain log as sent, and what a .gz may expand to.
LOG_UPLOAD_MAX_BYTES = env.int("LOG_UPLOAD_MAX_BYTES", default=256 * 1024 * 1024)
LOG_EXPANDED_MAX_BYTES = env.int("LOG_EXPANDED_MAX_BYTES", default=1024 * 1024 * 1024)
# Report lines a log may have: the series costs ~75 bytes a report while it is checked, so this
# bounds an upload's memory (2,500,000 reports: ~190 MB) whatever the log's length.
LOG_MAX_REPORTS = env.int("LOG_MAX_REPORTS", default=2_500_000)
# Lines a log may have, every line counted (comments, blank lines, trailers): a header of
# millions of `#` lines is refused at the first line past this, not read whole. Room for
# LOG_MAX_REPORTS reports and the longest header and trailer a real log prints.
LOG_MAX_LINES = env.int("LOG_MAX_LINES", default=3_000_000)
# Seconds reading and parsing one log may take (upload or preview); past it, a 413 naming it.
# Below gunicorn's --timeout (60 s), so the answer comes before the worker would be killed.
LOG_PARSE_SECONDS = env.float("LOG_PARSE_SECONDS", default=30.0)
# gunicorn's worker processes: it reads WEB_CONCURRENCY as its --workers, and
# docker-compose.yml and testing/server.py set it, so the site knows how many it has.
WEB_CONCURRENCY = env.int("WEB_CONCURRENCY", default=3)
# Logs read at once across the site (uploads, form posts and previews of every account
# together): one fewer than the sync workers, so a page always finds a worker that is not
# reading a log. A request past it is answered 503 with Retry-After at once, never held
# waiting (a waiting sync worker is a busy one): submissions/web/throttle.py.
LOG_READS_AT_ONCE = env.int("LOG_READS_AT_ONCE", default=max(1, WEB_CONCURRENCY - 1))
if LOG_READS_AT_ONCE < 1:
    raise ImproperlyConfigured(
        f"LOG_READS_AT_ONCE is {LOG_READS_AT_ONCE}: at least 1, or no log is ever read"
    )
# Entries a user may store per hour, through the form and the API together (counted in the
# database), and refused attempts (logs that did not parse, duplicates; counted in the cache).
UPLOADS_PER_HOUR = env.int("UPLOADS_PER_HOUR", default=30)
# Streamed runs (submissions/live): what one streamed batch may hold, how many batches a run may
# send a minute, when a silent run is shown stalled and then abandoned, and how far the log's
# elapsed seconds may run ahead of the registry's receipt clock (a share of the time the registry
# has watched the run, capped at a number of seconds: no run fits whole in it, so faking one
# costs at least 1/1.05 of its length; submissions/live/seal_rules.py) or lag behind it
# (buffered through a network loss).
LIVE_BATCH_MAX_BYTES = env.int("LIVE_BATCH_MAX_BYTES", default=1024 * 1024)
# The start of a live run kept whole to read each batch behind it: its header, however long,
# and a few reports (submissions/live/services.py, HEAD_LINES).
LIVE_HEAD_MAX_BYTES = env.int("LIVE_HEAD_MAX_BYTES", default=8 * 1024 * 1024)
LIVE_BATCHES_PER_MINUTE = env.int("LIVE_BATCHES_PER_MINUTE", default=120)
LIVE_RUNS_PER_HOUR = env.int("LIVE_RUNS_PER_HOUR", default=30)
LIVE_STALLED_SECONDS = env.int("LIVE_STALLED_SECONDS", default=10 * 60)
LIVE_ABANDONED_SECONDS = env.int("LIVE_ABANDONED_SECONDS", default=24 * 3600)
LIVE_CLOCK_TOLERANCE_SECONDS = env.float("LIVE_CLOCK_TOLERANCE_SECONDS", default=60.0)
LIVE_CLOCK_TOLERANCE_FRACTION = env.float("LIVE_CLOCK_TOLERANCE_FRACTION", default=0.05)
LIVE_CLOCK_MAX_LAG_SECONDS = env.float("LIVE_CLOCK_MAX_LAG_SECONDS", default=24 * 3600.0)
WITNESS_TOKEN_DAYS = env.int("WITNESS_TOKEN_DAYS", default=90)
REFUSED_UPLOADS_PER_HOUR = env.int("REFUSED_UPLOADS_PER_HOUR", default=120)
# Large uploads go to a temporary file, not memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "iibench_site.uploads.MemoryUploadHandler",
    "iibench_site.uploads.TemporaryUploadHandler",
]
FILE_UPLOAD_TEMP_DIR = env.str("FILE_UPLOAD_TEMP_DIR", default=None)
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# What a page may load: only this site. Plotly draws SVG traces ('scatter', never WebGL, which
# would need eval) and sets inline styles.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)

# API tokens expire this many days after they were issued (0: never); a new one is issued by
# POST /api/auth/token/, and its owner revokes it on the account page or with DELETE there.
API_TOKEN_DAYS = env.int("API_TOKEN_DAYS", default=90)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "submissions.entries.tokens.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # DRF's own parsers, each refusing a NUL in any text it read (submissions/web/text_input.py).
    "DEFAULT_PARSER_CLASSES": [
        "submissions.web.text_input.TextJSONParser",
        "submissions.web.text_input.TextFormParser",
        "submissions.web.text_input.TextMultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "iiBench registry API",
    "DESCRIPTION": "Submit iiBench runs, read verdicts, figures and leaderboards.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Verification reruns: named target databases, configured here and never taken from an entry.
# Each target has its own queue (rerun.<name>), so a verification host runs a worker bound to
# the database it owns. The sqlite target makes a fresh file per run.
IIBENCH_BINARY = env.path(
    "IIBENCH_BINARY", default=str(BASE_DIR / "runner" / "iibench" / "iibench")
)
RERUN_WORK_DIR = env.path("RERUN_WORK_DIR", default=str(VAR_DIR / "reruns"))
# MyRocks is a plugin (mariadb-plugin-rocksdb): the private MariaDB targets offer ROCKSDB only
# where its library is installed, and load it for the runs that ask it (runner/servers.py).
RERUN_MARIADB_ROCKSDB_PLUGIN = env.str(
    "RERUN_MARIADB_ROCKSDB_PLUGIN", default="/usr/lib/mysql/plugin/ha_rocksdb.so"
)
_ROCKSDB = ["ROCKSDB"] if Path(RERUN_MARIADB_ROCKSDB_PLUGIN).exists() else []
RERUN_TARGETS = {
    # What each target can verify: its server family and storage engines. Only a target that
    # starts a private server (`server`) can apply an entry's settings, so only those verify
    # MySQL/MariaDB and PostgreSQL entries; the others run comparison runs.
    "sqlite": {
        "url": "sqlite:///{work_dir}/rerun-{run_id}.db",
        "family": "sqlite",
        "time_limit": env.int("RERUN_SQLITE_TIME_LIMIT", default=2 * 3600),
        "max_rows": env.int("RERUN_SQLITE_MAX_ROWS", default=100_000_000),
        "engines": ["SQLite"],
    },
    # Verification: a private server per rerun (data directory, port and socket under
    # RERUN_RECOVERY_DIR) started with the entry's allowed settings, memory scaled with the run.
    "mariadb": {
        "url": "",
        "server": "mariadb",
        "family": "mysql",
        "time_limit": env.int("RERUN_MARIADB_TIME_LIMIT", default=6 * 3600),
        "max_rows": env.int("RERUN_MARIADB_MAX_ROWS", default=1_000_000_000),
        "engines": ["InnoDB", "MyISAM", "Aria", *_ROCKSDB],
    },
    "postgresql": {
        "url": "",
        "server": "postgresql",
        "family": "postgresql",
        "time_limit": env.int("RERUN_POSTGRESQL_TIME_LIMIT", default=6 * 3600),
        "max_rows": env.int("RERUN_POSTGRESQL_MAX_ROWS", default=1_000_000_000),
        "engines": ["PostgreSQL"],
    },
    # Shared scratch databases: the settings cannot be applied there, so comparison runs only.
    "mariadb-shared": {
        "url": env.str(
            "RERUN_TARGET_MARIADB_URL", default="mysql://root@127.0.0.1:3306/iibench_rerun"
        ),
        "family": "mysql",
        "time_limit": env.int("RERUN_MARIADB_SHARED_TIME_LIMIT", default=6 * 3600),
        "max_rows": env.int("RERUN_MARIADB_SHARED_MAX_ROWS", default=1_000_000_000),
        "engines": ["InnoDB", "MyISAM", "Aria", "BLACKHOLE"],
    },
    "postgresql-shared": {
        "url": env.str(
            "RERUN_TARGET_POSTGRESQL_URL",
            default="postgresql://postgres@127.0.0.1:5432/iibench_rerun",
        ),
        "family": "postgresql",
        "time_limit": env.int("RERUN_POSTGRESQL_SHARED_TIME_LIMIT", default=6 * 3600),
        "max_rows": env.int("RERUN_POSTGRESQL_SHARED_MAX_ROWS", default=1_000_000_000),
        "engines": ["PostgreSQL"],
    },
    # Crash recovery (seed 003): a private server too, killed with SIGKILL and timed as it
    # restarts. No URL: the server exists only for the run.
    "recovery-mariadb": {
        "url": "",
        "server": "mariadb",
        "family": "mysql",
        "procedure": "crash",
        "time_limit": env.int("RERUN_RECOVERY_MARIADB_TIME_LIMIT", default=2 * 3600),
        "max_rows": env.int("RERUN_RECOVERY_MARIADB_MAX_ROWS", default=100_000_000),
        "engines": ["InnoDB", "MyISAM", "Aria"],
    },
    "recovery-postgresql": {
        "url": "",
        "server": "postgresql",
        "family": "postgresql",
        "procedure": "crash",
        "time_limit": env.int("RERUN_RECOVERY_POSTGRESQL_TIME_LIMIT", default=2 * 3600),
        "max_rows": env.int("RERUN_RECOVERY_POSTGRESQL_MAX_ROWS", default=100_000_000),
        "engines": ["PostgreSQL"],
    },
}
# Seed 004 ran 10 writers and 100 readers, seed 001 a query thread: what a key-type or query
# rerun runs on each target (RERUN_MARIADB_WRITERS=4, RERUN_SQLITE_QUERY_THREADS=2...).
for _name, _target in RERUN_TARGETS.items():
    _prefix = "RERUN_" + _name.upper().replace("-", "_")
    _target["writers"] = env.int(f"{_prefix}_WRITERS", default=2)
    _target["readers"] = env.int(f"{_prefix}_READERS", default=2)
    _target["query_threads"] = env.int(f"{_prefix}_QUERY_THREADS", default=1)
    # The host a target's worker runs on is read from /proc and /sys when it starts; any of
    # its keys (cpu_model, cores, memory_gb, drive_kind) can be set here instead, as JSON:
    # RERUN_MARIADB_HOST='{"drive_kind": "hdd"}'.
    _target["host"] = env.json(f"{_prefix}_HOST", default={})
# The private servers of the recovery targets. Their directories hold a Unix socket, whose
# path must stay under about 100 characters: keep this short.
RERUN_RECOVERY_DIR = env.str("RERUN_RECOVERY_DIR", default=tempfile.gettempdir())
RERUN_RECOVERY_MARIADBD = env.str("RERUN_RECOVERY_MARIADBD", default="/usr/sbin/mariadbd")
RERUN_RECOVERY_MARIADB_INSTALL_DB = env.str(
    "RERUN_RECOVERY_MARIADB_INSTALL_DB", default="/usr/bin/mariadb-install-db"
)
RERUN_RECOVERY_POSTGRESQL_BIN_DIR = env.str(
    "RERUN_RECOVERY_POSTGRESQL_BIN_DIR", default="/usr/lib/postgresql/15/bin"
)
# PostgreSQL will not run as root: a worker running as root starts it as this user.
RERUN_RECOVERY_POSTGRESQL_USER = env.str("RERUN_RECOVERY_POSTGRESQL_USER", default="postgres")
# A root worker runs private MariaDB servers as this unprivileged user, never as root.
RERUN_RECOVERY_MARIADB_USER = env.str("RERUN_RECOVERY_MARIADB_USER", default="mysql")
# Where the cgroup hierarchies are mounted: each private server runs in a memory cgroup made
# below the worker's own (runner/cgroups.py). Where none can be made there, a PostgreSQL
# verification's page cache is not bounded and it is at best shape_only (docs/scaling.md).
RERUN_CGROUP_ROOT = env.str("RERUN_CGROUP_ROOT", default="/sys/fs/cgroup")
RERUN_LONGEST_SECONDS = max(target["time_limit"] for target in RERUN_TARGETS.values())
# A running rerun writes a heartbeat every RERUN_HEARTBEAT_SECONDS. The sweep, every
# RERUN_SWEEP_SECONDS, fails a run whose heartbeat is older than RERUN_HEARTBEAT_TIMEOUT: a run
# whose worker was killed is finished within TIMEOUT + SWEEP seconds (90 s by default).
RERUN_HEARTBEAT_SECONDS = env.int("RERUN_HEARTBEAT_SECONDS", default=5)
RERUN_HEARTBEAT_TIMEOUT = env.int("RERUN_HEARTBEAT_TIMEOUT", default=60)
RERUN_SWEEP_SECONDS = env.int("RERUN_SWEEP_SECONDS", default=30)
# A run of one benchmark run whose worker stopped is queued again and continues its table
# (--resume), at most this many times; past that, or for other runs, the sweep fails it.
RERUN_MAX_RESUMES = env.int("RERUN_MAX_RESUMES", default=3)
# A queued rerun no worker claimed RERUN_RESEND_SECONDS after it was last sent to the broker is
# sent again by the sweep: one the broker lost (Redis restarted; it keeps nothing on disk) or
# never got (it was down) starts within RESEND + SWEEP seconds of the broker being back. A run
# waiting behind a long one gets a duplicate message per period; the second delivery finds it
# claimed and does nothing.
RERUN_RESEND_SECONDS = env.int("RERUN_RESEND_SECONDS", default=300)
# Cancelling sends SIGTERM (the benchmark prints a last report) and SIGKILL after this grace.
RERUN_KILL_GRACE_SECONDS = 5
# Each verification host calibrates the classic judge's spreads (runner/calibration.py): when
# its queue is idle and its calibration of a band is missing or older than MAX_AGE_DAYS, its
# worker reruns the band's reference claim REPEATS times (within TIME_LIMIT seconds). A verdict
# on a host without a fresh calibration is inconclusive, unless RERUN_FIXTURE_SPREADS lets the
# project's fixtures stand in (the tests). A run beside BUSY_CORES of other work (steal time
# counted) fails the calibration.
RERUN_CALIBRATION_MAX_AGE_DAYS = env.float("RERUN_CALIBRATION_MAX_AGE_DAYS", default=7)
RERUN_FIXTURE_SPREADS = env.bool("RERUN_FIXTURE_SPREADS", default=False)
RERUN_CALIBRATE_WHEN_IDLE = env.bool("RERUN_CALIBRATE_WHEN_IDLE", default=True)
RERUN_CALIBRATION_REFERENCES = env.list("RERUN_CALIBRATION_REFERENCES", default=["demo-tenth"])
RERUN_CALIBRATION_REPEATS = env.int("RERUN_CALIBRATION_REPEATS", default=5)
RERUN_CALIBRATION_MAX_REPEATS = 10
RERUN_CALIBRATION_TIME_LIMIT = env.int("RERUN_CALIBRATION_TIME_LIMIT", default=900)
RERUN_CALIBRATION_BUSY_CORES = env.float("RERUN_CALIBRATION_BUSY_CORES", default=0.5)
# A calibration that failed (the host busy) is tried again RETRY_MIN_SECONDS after, then after
# twice as long at each further failure in a row, at most RETRY_SECONDS: not at every sweep.
RERUN_CALIBRATION_RETRY_MIN_SECONDS = env.int("RERUN_CALIBRATION_RETRY_MIN_SECONDS", default=120)
RERUN_CALIBRATION_RETRY_SECONDS = env.int("RERUN_CALIBRATION_RETRY_SECONDS", default=1800)
# Seconds the machine is watched before a calibration's first run: busy already (other work over
# BUSY_CORES, steal counted), it fails at once instead of after its repeats. 0: not watched.
RERUN_CALIBRATION_PRECHECK_SECONDS = env.float("RERUN_CALIBRATION_PRECHECK_SECONDS", default=5)
# Issue 45: reference runs beside a verification's repeats (runner/reference_runs.py): on, their
# rows (0: 100,000), one's time limit; and the CPU weight group of a
# verification's servers and benchmark (runner/cpu_weight.py).
RERUN_REFERENCE_RUNS = env.bool("RERUN_REFERENCE_RUNS", default=True)
RERUN_REFERENCE_ROWS = env.int("RERUN_REFERENCE_ROWS", default=0)
RERUN_REFERENCE_TIME_LIMIT = env.float("RERUN_REFERENCE_TIME_LIMIT", default=120)
RERUN_CPU_WEIGHT = env.bool("RERUN_CPU_WEIGHT", default=True)

# Celery: Redis when REDIS_URL is set, else kombu's filesystem transport (no server needed).
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_BROKER_DIR = Path(env.str("CELERY_BROKER_DIR", default=str(VAR_DIR / "celery")))
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # Redis redelivers an unacknowledged task after the visibility timeout: it must outlast
    # the longest run a target allows, or a long rerun would be started a second time.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        "visibility_timeout": int(RERUN_LONGEST_SECONDS * 1.2) + 600,
    }
else:
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "store_processed": False,
    }
# The upload rate limit counts in the cache: Redis when there is one, shared by every process.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        # A Redis that hangs must not hang the page: the cache is skipped after a second.
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck-reruns": {
        "task": "runner.tasks.sweep_stuck_runs",
        "schedule": RERUN_SWEEP_SECONDS,
    },
    "sweep-rechecks": {
        "task": "submissions.tasks.sweep_rechecks",
        "schedule": RERUN_SWEEP_SECONDS,
    },
}
# The open dataset (submissions/opendata): where its builds live (empty: MEDIA_ROOT/open-data,
# which the web processes and the workers share), how often the sweep looks whether the
# registry changed since the last build, the least time between two builds (the debounce), and
# how long a build may run before the sweep takes it for dead.
OPEN_DATA_DIR = env.str("OPEN_DATA_DIR", default="")
OPEN_DATA_SWEEP_SECONDS = env.int("OPEN_DATA_SWEEP_SECONDS", default=60)
OPEN_DATA_MIN_INTERVAL_SECONDS = env.int("OPEN_DATA_MIN_INTERVAL_SECONDS", default=300)
OPEN_DATA_BUILD_TIMEOUT_SECONDS = env.int("OPEN_DATA_BUILD_TIMEOUT_SECONDS", default=3600)
# The dataset is made of parts, each the entries of one range of this many ids (and their
# verdicts and series): a change rebuilds the parts holding the entries it touched, no other.
OPEN_DATA_PART_IDS = env.int("OPEN_DATA_PART_IDS", default=10_000)
CELERY_BEAT_SCHEDULE["open-dataset"] = {
    "task": "submissions.tasks.open_dataset_refresh",
    "schedule": OPEN_DATA_SWEEP_SECONDS,
    # A sweep queued behind a long build is worth nothing once the next one is sent.
    "options": {"expires": OPEN_DATA_SWEEP_SECONDS},
}
# A contest re-check queued this long without a worker taking it, or running without a
# heartbeat this long (one entry's check takes seconds), is sent again by the sweep.
RECHECK_STALE_SECONDS = env.int("RECHECK_STALE_SECONDS", default=120)
# A worker writes a heartbeat per queue it consumes this often; a queue without one newer than
# the stale limit has no worker (runner/heartbeats.py): its targets are not offered.
RERUN_WORKER_BEAT_SECONDS = env.int("RERUN_WORKER_BEAT_SECONDS", default=15)
RERUN_WORKER_BEAT_STALE_SECONDS = env.int("RERUN_WORKER_BEAT_STALE_SECONDS", default=60)
# The verification host a worker registers (runner/fleet.py) is read from /proc and /sys and its
# server binaries; an organizer sets what they misread here, as JSON (cpu_model, cores,
# memory_gb, drive_kind, drive_model, servers): RERUN_HOST_FACTS='{"drive_kind": "nvme"}'.
RERUN_HOST_FACTS = env.json("RERUN_HOST_FACTS", default={})
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# E-mail (password resets): EMAIL_URL such as smtp://user:password@host:587; by default the
# messages are written to the log, so nothing is sent by surprise and nothing fails.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="iibench-registry@localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
