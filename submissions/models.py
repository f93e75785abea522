from __future__ import annotations

from pathlib import PurePath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from simple_history.models import HistoricalRecords

from submissions import tracks
from submissions.board.versions import forget_kept_versions
from submissions.contests.rank_query import beats_q, ranked_q
from submissions.entries.outcome import (
    OUTCOME_CHOICES,
    REPRODUCED,
    VerificationOutcome,
    outcome_of,
)
from submissions.setup.engines import SERVER_FAMILIES

# The workloads are the tracks (submissions/tracks): `Workload.<NAME>` for a test that names one.
# The contest's field takes its choices from TRACKS when asked, so a new track is offered
# without a migration.
Workload = models.TextChoices(
    "Workload",
    [(workload.upper(), (workload, track.label)) for workload, track in tracks.TRACKS.items()],
)


class Contest(models.Model):
    """A contest and its ground rules. The rules are data: organizers edit them in the admin and
    re-check the entries; the rule functions in `rules.py` read them."""

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, help_text="Markdown.")
    workload = models.CharField(
        max_length=20, choices=tracks.workload_choices, default=tracks.DEFAULT_TRACK.workload
    )

    target_rows = models.PositiveBigIntegerField(default=1_000_000_000)
    rows_per_commit = models.PositiveIntegerField(default=1_000)
    max_rows_per_insert = models.PositiveIntegerField(default=1_000)
    report_every_rows = models.PositiveIntegerField(default=1_000_000)
    report_every_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=(
            "Or a report at least every N seconds: the cadence the Python and Java iibench "
            "keep (they report by time). Empty: only the rows cadence is accepted."
        ),
    )
    indexes_from_start = models.BooleanField(
        default=True,
        help_text="Rows must be inserted with the indexes in place (no bulk load + ALTER).",
    )
    terminal_window_rows = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="Rows in the terminal-rate window. Empty: 10M rows, or the last 1% of a shorter run.",
    )
    track_rules = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            "The workload's own rule parameters, by the names its track declares "
            "(its TrackParameter list). Empty ({}): the track's defaults. "
            "Re-check the entries after changing them."
        ),
    )

    max_sockets = models.PositiveSmallIntegerField(null=True, blank=True, default=2)
    max_cores = models.PositiveSmallIntegerField(null=True, blank=True, default=8)
    max_memory_gb = models.FloatField(null=True, blank=True, default=16)
    max_drives = models.PositiveSmallIntegerField(null=True, blank=True, default=8)
    require_direct_attached = models.BooleanField(default=True)
    raid_allowed = models.BooleanField(default=True)
    required_mysql_version = models.CharField(
        max_length=20,
        blank=True,
        default="5.1",
        help_text=(
            "A version prefix such as 5.1 (MySQL 5.1.x only); 5.1+ for any current server: "
            "MySQL or Percona 5.1 or later, MariaDB 10 or later, PostgreSQL; empty: any."
        ),
    )
    preferred_os = models.CharField(
        max_length=100,
        blank=True,
        default="CentOS 5",
        help_text="A note for comparison, never a failure.",
    )

    deadline = models.DateTimeField(null=True, blank=True)
    timezone = models.CharField(max_length=64, default="America/New_York")
    results_published_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Until then the leaderboard and entries are organizers-only.",
    )
    rerun_tolerance = models.FloatField(
        default=0.25,
        validators=[MinValueValidator(0.0), MaxValueValidator(10.0)],
        help_text="A rerun reproduces a claim when its rate is within this fraction of the claimed rate.",
    )
    verification_scale = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="The standard verification scale k: every verification or comparison run at "
        "1/k lands on the contest's host board, ranked as measured on each registry host. "
        "Empty: no host board.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Bumped in the same transaction as every change a contest page shows (an entry, a rank, a
    # verified badge, a reference row, the contest itself): rendered pages are cached under it,
    # so a cached page is never one version behind.
    board_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        # An expression, not +1 in Python: a stale copy saved by the admin must still move the
        # version forward past anything another process bumped meanwhile.
        if self.pk is not None:
            self.board_version = models.F("board_version") + 1
        super().save(*args, **kwargs)
        if self.pk is not None and not isinstance(self.board_version, int):
            self.refresh_from_db(fields=["board_version"])
        forget_kept_versions()

    def get_absolute_url(self) -> str:
        return reverse("contest_detail", args=[self.slug])

    @property
    def track(self) -> tracks.Track:
        return tracks.track_for(self.workload)

    def clean(self) -> None:
        super().clean()
        try:
            # Stored complete, so the admin shows every parameter with its value.
            self.track_rules = tracks.track_rules(self.track, self.track_rules)
        except tracks.TrackInputError as error:
            raise ValidationError({"track_rules": error.message}) from None

    def is_open(self, now=None) -> bool:
        return self.deadline is None or (now or timezone.now()) <= self.deadline

    def results_are_public(self, now=None) -> bool:
        published = self.results_published_at
        return published is not None and (now or timezone.now()) >= published


ServerFamily = models.TextChoices(
    "ServerFamily", [(key.upper(), (key, label)) for key, label in SERVER_FAMILIES.items()]
)


class DriveKind(models.TextChoices):
    HDD = "hdd", "HDD"
    SSD = "ssd", "SSD"
    NVME = "nvme", "NVMe"
    # A VM's or a cloud provider's block device (virtio vda, Xen xvda, EBS, Ceph RBD): neither
    # HDD nor SSD as the drive table means them, and its IOPS cap is the provider's.
    VIRTUAL = "virtual", "Virtual or cloud volume"


# A board builds a line per row: a dict, not the enum's lookups (`DriveKind.values` is a list
# made on every read).
DRIVE_LABELS = dict(DriveKind.choices)


class DemoKind(models.TextChoices):
    """Entries the site loads as demo data, so no board, page, export or feed passes them off
    as entrants' results."""

    NONE = "", "An entrant's result"
    DEMO = "demo", "Demo data (a real run made for the demo)"
    SYNTHETIC = "synthetic", "Synthetic (a made-up log, not a real run)"


# What the leaderboard sorts, filters and counts on (see Submission.Meta.indexes).
BOARD_INDEX_COLUMNS = [
    "seconds_to_target", "terminal_rate", "average_rate", "verification", "drive_kind",
    "storage_engine", "engine", "cores", "memory_gb", "publish", "entrant_name",
    "track_metric", "track_class", "elapsed_seconds", "estimated", "demo", "db_size_bytes",
    "write_kb_per_row", "server_cpu_us_per_row", "eligible", "verification_at", "setup_edited_at",
]  # fmt: skip


# What the registry computes on a Submission (and the demo loader's flag); the rest is what the
# entrant sent.
COMPUTED_FIELDS = [
    "updated_at", "log_format", "log_format_label", "parameters", "rows", "elapsed_seconds",
    "elapsed_source", "average_rate", "terminal_rate", "terminal_window_rows",
    "terminal_window_start_row", "terminal_window_basis", "seconds_to_target", "estimated",
    "estimate_basis", "excerpt", "verdicts", "eligible", "ineligible_reason", "checked_at",
    "engine", "rules_version", "edited_at", "verification", "verification_at",
    "verification_headline", "setup_edited_at", "verified_now", "track_figures",
    "track_metric", "track_class", "demo", "run_fingerprint", "db_size_bytes", "write_kb_per_row",
    "reads_per_row", "server_cpu_us_per_row", "client_cpu_us_per_row", "machine_cpu_us_per_row",
]  # fmt: skip


# What only the runner wing writes (runner/verdicts.py entry_verification_refresh), by UPDATE.
RUNNER_WRITTEN = frozenset({"verification", "verification_at", "verification_headline"})


def verified_now_expression() -> models.Case:
    """The entries a verification reproduced, of their declaration as it stands: the SQL of
    VerificationOutcome.verified (an edit of the setup after the verification undoes it),
    kept by the database as the stored column `verified_now`, so the board's verified sort and
    filter read an index (migration 0031) instead of computing it for every entry."""
    # Never NULL, so that its negation (streamed, self-reported) counts every other entry: an
    # outcome without a date (an organizer's mark from before dates were kept) and an edit.
    current = Q(setup_edited_at__isnull=True) | Q(
        verification_at__isnull=False, verification_at__gte=models.F("setup_edited_at")
    )
    return models.Case(
        models.When(Q(verification=REPRODUCED) & current, then=models.Value(True)),
        default=models.Value(False),
        output_field=models.BooleanField(),
    )


def verified_q() -> Q:
    return Q(verified_now=True)


def log_upload_path(submission: Submission, filename: str) -> str:
    # The stored name never comes from the client: only a safe suffix survives.
    suffix = ".gz" if PurePath(filename).suffix.lower() == ".gz" else ".log"
    return f"logs/{submission.contest.slug}/{submission.log_sha256}{suffix}"


# Where a list's read of its entries' ranks is kept on each instance (Submission.rank).
KNOWN_RANK = "_known_rank"
# Where `ranks_known` leaves which ranking keys it read the rank from (the tally's count and sum
# they were checked with, contests/ranks.py), for the entry's placement among its engine's to be
# read from the same keys.
KNOWN_KEYS = "_known_keys"


class Submission(models.Model):
    """One entry: what the entrant declared, the log as uploaded and what the registry found."""

    contest = models.ForeignKey(Contest, on_delete=models.PROTECT, related_name="submissions")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    submitted_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    entrant_name = models.CharField(max_length=200)
    email = models.EmailField()
    publish = models.BooleanField(
        default=False, help_text="Show my name with my result. Otherwise: 'Anonymous entrant'."
    )

    cpu_model = models.CharField(max_length=200)
    sockets = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(64)]
    )
    cores = models.PositiveSmallIntegerField(
        help_text="Cores in total.", validators=[MinValueValidator(1), MaxValueValidator(4096)]
    )
    cpu_ghz = models.FloatField(
        "CPU GHz", validators=[MinValueValidator(0.1), MaxValueValidator(10.0)]
    )
    memory_gb = models.FloatField(
        "memory (GB)", validators=[MinValueValidator(0.01), MaxValueValidator(1_048_576)]
    )
    drives = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(0), MaxValueValidator(1024)]
    )
    drive_kind = models.CharField(max_length=10, choices=DriveKind.choices)
    raid_level = models.CharField(
        max_length=40, blank=True, help_text="e.g. RAID 5 on 6 drives; empty: none."
    )
    direct_attached = models.BooleanField(default=True)

    os = models.CharField("OS and version", max_length=200)
    server_family = models.CharField(
        "database server", max_length=20, choices=ServerFamily.choices, default=ServerFamily.MYSQL
    )
    server_version = models.CharField(
        "server version", max_length=100, help_text="As the server reports it, e.g. 5.1.25-rc."
    )
    storage_engine = models.CharField(
        max_length=100, help_text="As you call it, e.g. InnoDB plugin 1.0.1."
    )
    storage_engine_version = models.CharField(max_length=100, blank=True)

    solution_description = models.TextField(max_length=50_000, help_text="Markdown.")
    server_config = models.TextField(
        "server configuration", max_length=200_000, blank=True, help_text="my.cnf, optional."
    )

    # Empty for an entry without a log: a track whose figures are declared (crash recovery).
    log = models.FileField(upload_to=log_upload_path, max_length=300, blank=True)
    log_name = models.CharField(
        max_length=255, blank=True, help_text="The file name as sent, for display only."
    )
    log_sha256 = models.CharField(max_length=64, blank=True)
    # The parsed run's fingerprint (series.series_fingerprint): the same run sent again with
    # other bytes (re-gzipped, CRLF, blank lines) is refused as a duplicate. Empty without a
    # series (declared figures, key-type runs, load summaries): the bytes decide there.
    run_fingerprint = models.CharField(max_length=64, blank=True)
    log_size = models.PositiveBigIntegerField(default=0)
    # What the entrant declared for the contest's track beyond the run's declaration (the
    # fields of submissions/tracks/__init__.py, e.g. crash recovery's insert_rate), as typed values.
    track_declared = models.JSONField(default=dict, blank=True)

    # What the registry found: written by services.submission_check, never by a form.
    log_format = models.CharField(max_length=40, blank=True)
    log_format_label = models.CharField(max_length=100, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    rows = models.PositiveBigIntegerField(default=0)
    # Measured: the log's own last report or summary line, never an extrapolation.
    elapsed_seconds = models.FloatField(default=0)
    elapsed_source = models.CharField(
        max_length=120, blank=True, help_text='Where elapsed was read, e.g. "summary line 40".'
    )
    average_rate = models.FloatField(default=0)
    terminal_rate = models.FloatField(null=True, blank=True)
    terminal_window_rows = models.PositiveBigIntegerField(default=0)
    terminal_window_start_row = models.PositiveBigIntegerField(default=0)
    terminal_window_basis = models.CharField(
        max_length=200,
        blank=True,
        help_text='How the window was sized: "the last 10,000,000 rows".',
    )
    seconds_to_target = models.FloatField(
        null=True,
        blank=True,
        help_text="Time to the target rows: measured, or extrapolated when estimated.",
    )
    estimated = models.BooleanField(default=False)
    estimate_basis = models.CharField(
        max_length=300, blank=True, help_text="What an estimate extrapolates; empty when measured."
    )
    # The log does not start at the beginning of the run (its first report comes late).
    excerpt = models.BooleanField(default=False)
    demo = models.CharField(max_length=10, choices=DemoKind.choices, blank=True, default="")
    verdicts = models.JSONField(default=list, blank=True)
    eligible = models.BooleanField(default=False)
    ineligible_reason = models.CharField(max_length=500, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    # The engine the board filters by ("InnoDB" for "InnoDB plugin 1.0"), derived from the
    # free text with the verdicts (submissions/setup/engines.py); the free text is shown as written.
    engine = models.CharField(max_length=40, blank=True)
    # The rules the verdicts were made under: the entry page states them from this version, so
    # a sentence of one version never stands beside a verdict of another. Null: judged before
    # versions were kept (a re-check is queued by the migration).
    rules_version = models.ForeignKey(
        "RuleVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The last time the entrant's declaration changed after submission (the "edited" mark).
    edited_at = models.DateTimeField(null=True, blank=True)
    # The last edit of what a verification reruns (the machine, server, engine or settings,
    # entries/outcome.SETUP_FIELDS): a verification judged before it is of another
    # declaration, and says so ("verified before an edit") until an organizer verifies again.
    setup_edited_at = models.DateTimeField(null=True, blank=True)
    # The verification outcome, stored once (entries/outcome.py reads it for every page,
    # board, export and feed): the verdict of the organizers' verification reruns the entry
    # shows (a reproduction over a shape, over the latest other verdict), when that rerun
    # finished, and its headline in the judge's words. Written by the runner wing only
    # (runner/verdicts.py entry_verification_refresh).
    verification = models.CharField(max_length=16, blank=True, choices=OUTCOME_CHOICES)
    verification_at = models.DateTimeField(null=True, blank=True)
    verification_headline = models.TextField(blank=True)
    # Verified now: the database's own reading of the three above and setup_edited_at
    # (verified_now_expression), never written by code.
    verified_now = models.GeneratedField(
        expression=verified_now_expression(),
        output_field=models.BooleanField(),
        db_persist=True,
    )
    # The figures of the contest's track beyond the run's own (deletes, query times,
    # key types, load rates, recovery times), as submissions/tracks/__init__.py computes them; the
    # rerun service compares a rerun with these. Empty for a track with none.
    track_figures = models.JSONField(default=dict, blank=True)
    # The track's ranking metric and class, copied out of track_figures when the entry is
    # checked, so the board ranks and sorts on columns and never reads JSON in SQL.
    track_metric = models.FloatField(null=True, blank=True)
    track_class = models.CharField(max_length=40, blank=True)
    # What the run cost (submissions/measures/costs.py), from the cost columns of its log (iibench-c
    # format 2); null where the log does not carry them, never zero for "unknown". Per-row
    # figures are over the terminal-rate window, like the terminal rate.
    db_size_bytes = models.PositiveBigIntegerField(
        "database size (bytes)", null=True, blank=True, help_text="Table and indexes at the end."
    )
    write_kb_per_row = models.FloatField("KiB written per row", null=True, blank=True)
    reads_per_row = models.FloatField("device reads per row", null=True, blank=True)
    server_cpu_us_per_row = models.FloatField("server CPU µs per row", null=True, blank=True)
    client_cpu_us_per_row = models.FloatField("client CPU µs per row", null=True, blank=True)
    # The whole machine (client, server and the rest), iibench-c format 3.
    machine_cpu_us_per_row = models.FloatField("machine CPU µs per row", null=True, blank=True)

    # Who changed the declaration or the log, when and what (the entry's history page). What
    # the registry computes is left out: a re-check is not an edit.
    history = HistoricalRecords(excluded_fields=COMPUTED_FIELDS)

    class Meta:
        ordering = ["-submitted_at"]
        constraints = [
            # Only entries with a log: entries of declared figures have no file to repeat.
            models.UniqueConstraint(
                fields=["contest", "log_sha256"],
                condition=~models.Q(log_sha256=""),
                name="one_entry_per_log_per_contest",
            ),
            models.UniqueConstraint(
                fields=["contest", "run_fingerprint"],
                condition=~models.Q(run_fingerprint=""),
                name="one_entry_per_run_per_contest",
            ),
        ]
        indexes = [
            # The board's ranks, counts and sorted pages read from the index alone (the
            # columns it ranks, sorts and filters on), never the wide rows.
            models.Index(
                fields=["contest", "id"],
                include=BOARD_INDEX_COLUMNS,
                name="leaderboard_idx",
            ),
            # The ranked entries in rank order (the classic ranking's keys; a track's metric
            # within its class): a board page in rank order and an entry's rank (a count of
            # the entries before it) read this index alone, whatever the board's size.
            # (The terminal rate, which breaks ties, is sorted on top of it: SQLite takes no
            # NULLS LAST in an index.)
            models.Index(
                fields=["contest", "estimated", "seconds_to_target"],
                condition=Q(eligible=True, seconds_to_target__isnull=False),
                name="ranked_by_time_idx",
            ),
            models.Index(
                fields=["contest", "track_class", "track_metric", "id"],
                condition=Q(eligible=True, track_metric__isnull=False),
                name="ranked_by_metric_idx",
            ),
            # The leaderboard's engine filter lists a contest's engines from this index alone.
            models.Index(fields=["contest", "engine"], name="contest_engines_idx"),
            # ... and its like-hardware filters their choices (board/reads.py MACHINES_SQL).
            models.Index(fields=["contest", "cpu_model"], name="contest_cpus_idx"),
            models.Index(fields=["contest", "cores"], name="contest_cores_idx"),
            models.Index(fields=["contest", "memory_gb"], name="contest_memory_idx"),
            models.Index(fields=["owner", "-submitted_at"], name="owner_entries_idx"),
        ]

    def __str__(self) -> str:
        return f"Entry #{self.pk} ({self.storage_engine}, {self.contest.slug})"

    def save(self, *args, **kwargs):
        self.__dict__.pop(KNOWN_RANK, None)  # its values may change what its rank is
        self.__dict__.pop(KNOWN_KEYS, None)  # and the keys no longer hold it as it is
        # A copy saved with its primary key cleared (Django's way to copy an instance) is new.
        new = self._state.adding or self.pk is None
        if not new and not args and kwargs.get("update_fields") is None:
            # The runner writes the verification outcome while an edit or a re-check holds
            # an instance read before it: saving that instance must not undo the verdict.
            kwargs["update_fields"] = self._fields_but_the_outcome()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("submission_detail", args=[self.pk])

    @property
    def public_name(self) -> str:
        return self.entrant_name if self.publish else "Anonymous entrant"

    def _fields_but_the_outcome(self) -> list[str]:
        deferred = self.get_deferred_fields()
        return [
            field.name
            for field in self._meta.concrete_fields
            if not field.primary_key
            and not field.generated
            and field.name not in RUNNER_WRITTEN
            and field.attname not in deferred
        ]

    @property
    def verification_outcome(self) -> VerificationOutcome:
        """What the organizers' verifications say of the entry as declared now."""
        return outcome_of(self)

    @property
    def verified(self) -> bool:
        """A verification reproduced the claim as it is declared now (no edit since)."""
        return self.verification_outcome.verified

    @property
    def rank(self) -> int | None:
        """Competition rank within the contest (1, 2, 2, 4), None when not ranked: derived
        from the entry's values and its rivals' (contests.ranks), never stored, so a new entry
        rewrites nobody's rank. A list reads its entries' ranks at once (contests.ranks
        `ranks_known`: one window per contest); otherwise one count each time it is read (an
        instance may be saved again, which forgets a rank read with its list)."""
        if KNOWN_RANK in self.__dict__:
            return self.__dict__[KNOWN_RANK]
        return self.counted_rank()

    def counted_rank(self) -> int | None:
        """One entry's rank: 1 + the ranked entries of its contest (and class) that beat it.
        One count of those (O(its rank), not the board's size), and nothing written; pages
        read ranks from the kept ranking keys where they are kept (contests.ranks.ranks_known)."""
        track = self.contest.track
        ranking = track.ranking
        keys = ranking.order
        if not self.eligible or any(
            key.required and getattr(self, key.column) is None for key in keys
        ):
            return None
        rivals = Submission.objects.filter(ranked_q(track), contest_id=self.contest_id)
        if ranking.class_key:
            rivals = rivals.filter(track_class=self.track_class)
        values = tuple(getattr(self, key.column) for key in keys)
        return 1 + rivals.filter(beats_q(keys, values)).count()

    @property
    def hardware_summary(self) -> str:
        return hardware_summary(
            sockets=self.sockets,
            cpu_model=self.cpu_model,
            cores=self.cores,
            memory_gb=self.memory_gb,
            drives=self.drives,
            drive_kind=self.drive_kind,
            raid_level=self.raid_level,
        )


def hardware_summary(
    *,
    sockets: int,
    cpu_model: str,
    cores: int,
    memory_gb: float,
    drives: int,
    drive_kind: str,
    raid_level: str,
) -> str:
    """One line a leaderboard can show; lists build it from plain values, not instances."""
    raid = f", {raid_level}" if raid_level else ""
    kind = DRIVE_LABELS.get(drive_kind, drive_kind)
    return f"{sockets}x {cpu_model}, {cores} cores, {memory_gb:g} GB, {drives}x {kind}{raid}"


class BoardTally(models.Model):
    """How many entries a contest holds, by what decides whether the board ranks them
    (eligible, with a time to the target, with a metric): kept by PostgreSQL triggers
    (migration 0023) in the same transaction as every insert, update and delete of an entry,
    whatever made it, so a board's counts are one read of a few rows instead of a count of
    every entry. SQLite keeps none: its boards count."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="+")
    eligible = models.BooleanField()
    has_time = models.BooleanField()  # seconds_to_target is set
    has_metric = models.BooleanField()  # track_metric is set
    entries = models.BigIntegerField(default=0)
    # The sum of a hash of each entry's class and ranking values (migration 0025): kept ranking
    # keys are checked against it (board/kept_ranks.py).
    ranking_sum = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["contest", "eligible", "has_time", "has_metric"], name="board_tally_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.contest_id}: {self.entries}"


class EngineMonthBest(models.Model):
    """The best average rate of an eligible entry per contest, storage engine (as written) and
    month: the home page's engine chart groups these rows (O(contests x engines x months))
    instead of every eligible entry. Kept on every save and delete of an entry whatever made
    it (signals.py, board/engine_bests.py); migration 0035 filled it from the entries."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="+")
    storage_engine = models.CharField(max_length=100)
    month = models.DateField()
    best = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["contest", "storage_engine", "month"], name="engine_month_best_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.contest_id} {self.storage_engine} {self.month}: {self.best}"


class SettingSource(models.TextChoices):
    DECLARED = "declared", "Declared by the entrant"
    BENCHMARK_HEADER = "benchmark_header", "Printed by the benchmark"
    RERUN_READBACK = "rerun_readback", "Read back from a rerun's server"


class ServerSetting(models.Model):
    """One server setting an entry ran with (innodb_buffer_pool_size = 12G), from the declared
    configuration text, the benchmark's own header or a rerun's server; a rerun applies the
    declared ones that the allow-list lets through (submissions/setup/server_settings.py)."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="server_settings"
    )
    key = models.CharField(max_length=200)
    value = models.CharField(max_length=1000, blank=True)
    source = models.CharField(max_length=20, choices=SettingSource.choices)
    line = models.PositiveIntegerField(
        null=True, blank=True, help_text="Where the source says it (declared text, log)."
    )

    class Meta:
        ordering = ["source", "line", "key"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "source", "key"], name="one_setting_per_source_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.key} = {self.value} ({self.source})"


class SampleSeries(models.Model):
    """The parsed samples of a log, kept apart from the entry so lists never load them.
    `columns` holds the full series (compressed numpy arrays); `preview` the downsampled curve
    the entry page plots, computed once at submission."""

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, primary_key=True, related_name="series"
    )
    count = models.PositiveIntegerField()
    columns = models.BinaryField()
    preview = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"{self.count:,} samples of entry #{self.submission_id}"

    @property
    def rate_curves(self) -> dict:
        """The preview's rate curves, what the entry page's plot draws: its cost curves are
        embedded on their own and its seconds serve the compare page."""
        return {
            name: curve for name, curve in self.preview.items() if name not in ("cost", "seconds")
        }


class ReferenceResult(models.Model):
    """A published result from the seeds (Tokutek's deck and briefs), shown on the leaderboard
    for comparison and never ranked: nobody submitted its log to this registry."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="references")
    label = models.CharField(max_length=200, help_text='e.g. "Tokutek InnoDB (2008 contest)".')
    storage_engine = models.CharField(max_length=100)
    hardware = models.CharField("hardware summary", max_length=300)
    drive_kind = models.CharField(max_length=10, choices=DriveKind.choices, blank=True)
    rows = models.PositiveBigIntegerField(help_text="The rows the figures refer to.")
    elapsed_seconds = models.FloatField(
        null=True, blank=True, help_text="Time to the rows; empty when the source does not say."
    )
    estimated = models.BooleanField(default=False)
    terminal_rate = models.FloatField(null=True, blank=True)
    average_rate = models.FloatField(null=True, blank=True)
    size_gib = models.FloatField("size (GiB)", null=True, blank=True)
    source = models.CharField(max_length=300, help_text="Which seed or brief published it.")
    note = models.TextField(blank=True)
    # The published figures of a track (same keys as Submission.track_figures) and, as for an
    # entry, its ranking metric and class, which place the row among the ranked entries.
    track_figures = models.JSONField(default=dict, blank=True)
    track_metric = models.FloatField(null=True, blank=True)
    track_class = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["label"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "label"], name="one_reference_per_label"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def measured_elapsed_seconds(self) -> float | None:
        """The published time when it was measured; an estimate is not an elapsed time."""
        return None if self.estimated else self.elapsed_seconds

    @property
    def size_bytes(self) -> int | None:
        """The size in the unit entries are stored in, for sorting them together."""
        return None if self.size_gib is None else round(self.size_gib * 1024**3)


class RuleVersion(models.Model):
    """One version of a contest's rules, as they were: every change of a rule (admin, API,
    track defaults, a shell) records the next one, with the change in words."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="rule_versions")
    number = models.PositiveIntegerField()
    # The rule fields of the contest (submissions/contests/rule_changes.py RULE_FIELDS) as JSON.
    rules = models.JSONField()
    changes = models.JSONField(
        default=list, blank=True, help_text='e.g. ["memory cap 16 -> 32 GB"]'
    )
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["contest", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "number"], name="one_rule_version_number"),
        ]

    def __str__(self) -> str:
        return f"{self.contest.slug} rules v{self.number}"


class RecheckStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    SUPERSEDED = "superseded", "Superseded by newer rules"
    FAILED = "failed", "Failed"


class Recheck(models.Model):
    """Judging a contest's entries again under a new rule version, in the background. A row,
    not only a Celery message: a sweep re-sends one the broker lost (still queued) or whose
    worker died (running, heartbeat old)."""

    rule_version = models.ForeignKey(RuleVersion, on_delete=models.CASCADE, related_name="rechecks")
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="rechecks")
    status = models.CharField(
        max_length=20, choices=RecheckStatus.choices, default=RecheckStatus.QUEUED, db_index=True
    )
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    sent_count = models.PositiveIntegerField(default=0, help_text="Times sent to the broker.")
    total = models.PositiveIntegerField(default=0)
    checked = models.PositiveIntegerField(default=0)
    unreadable = models.PositiveIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-queued_at"]

    def __str__(self) -> str:
        return f"re-check of {self.rule_version} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (RecheckStatus.DONE, RecheckStatus.SUPERSEDED, RecheckStatus.FAILED)


class ChangeStatus(models.TextChoices):
    PENDING = "pending", "Waiting for an organizer"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    SUPERSEDED = "superseded", "Replaced by a later change"


class PendingChange(models.Model):
    """An entrant's edit of a published entry that would change a figure or a verdict: the
    public keeps seeing the published entry until an organizer approves it."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="pending_changes"
    )
    declared = models.JSONField(help_text="The whole declaration as the entrant sent it.")
    changes = models.JSONField(default=list, help_text='e.g. ["memory (GB): 16 -> 32"]')
    effects = models.JSONField(default=list, help_text="The figures and verdicts it changes.")
    status = models.CharField(
        max_length=20, choices=ChangeStatus.choices, default=ChangeStatus.PENDING
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["submission"],
                condition=models.Q(status="pending"),
                name="one_pending_change_per_entry",
            ),
        ]

    def __str__(self) -> str:
        return f"change of entry #{self.submission_id} ({self.status})"


class CheckedVerdicts(models.Model):
    """An entry's verdicts and figures as they were checked under one rule version, kept when
    newer rules judge it again: the permanent link /entries/<id>/rules/v<N>/ shows them."""

    submission = models.ForeignKey(
        Submission, on_delete=models.CASCADE, related_name="checked_verdicts"
    )
    rules_version = models.ForeignKey(RuleVersion, on_delete=models.CASCADE, related_name="+")
    verdicts = models.JSONField(default=list)
    eligible = models.BooleanField(default=False)
    ineligible_reason = models.CharField(max_length=500, blank=True)
    # The figures the verdicts were made beside (rows, elapsed, rates, time to target).
    figures = models.JSONField(default=dict)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "rules_version"], name="one_check_per_rule_version"
            ),
        ]

    def __str__(self) -> str:
        return f"Entry #{self.submission_id} under {self.rules_version}"


class OpenDataset(models.Model):
    """The whole-registry open dataset's builds (submissions/opendata): one row. The files of
    the build served are named by `manifest`; a build runs in the background when the
    registry's version moved on (opendata/state.py), at most every OPEN_DATA_MIN_INTERVAL."""

    # The build served: its manifest (files, sizes, checksums, built_at, registry version),
    # empty before the first build.
    manifest = models.JSONField(default=dict, blank=True)
    built_at = models.DateTimeField(null=True, blank=True)
    registry_version = models.CharField(max_length=64, blank=True)
    # The last build started (the debounce) and the one running now, if any.
    started_at = models.DateTimeField(null=True, blank=True)
    building_since = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return f"open dataset built {self.built_at or 'never'}"


class OpenDataChange(models.Model):
    """An entry whose open dataset rows may have changed since a build read this log: written
    by database triggers (migration 0037) on every insert, update and delete of an entry, its
    series and its stream, whatever code or statement made it. A build reads the log instead
    of every entry, rebuilds the parts holding the entries named, and deletes the rows it read
    once its build is served (submissions/opendata/build.py)."""

    entry_id = models.BigIntegerField()

    def __str__(self) -> str:
        return f"open data change of entry {self.entry_id}"


class SeedReproduction(models.Model):
    """One engine's run of one of the seeds' comparisons (tracks/reproduced.py), made at 1/scale
    on a verification host's private server by `manage.py reproduce_seeds`: the figures its
    log gives, its curve, and the cache and memory limit it ran with. Run again on the same
    host and scale, it is replaced; the seeds' table page shows each beside the published
    figures."""

    comparison = models.CharField(max_length=20)
    engine = models.CharField(max_length=40)  # as --engine names it; PostgreSQL for PostgreSQL
    host = models.CharField(max_length=200)
    scale = models.PositiveIntegerField()
    status = models.CharField(max_length=20, default="completed")  # or "failed"
    message = models.TextField(blank=True)  # why a run failed, or the cache held at its floor
    rows = models.PositiveBigIntegerField(default=0)
    seconds = models.FloatField(null=True, blank=True)
    terminal_rate = models.FloatField(null=True, blank=True)
    average_rate = models.FloatField(null=True, blank=True)
    query_seconds = models.FloatField(null=True, blank=True)
    cache = models.CharField(max_length=200, blank=True)  # "innodb_buffer_pool_size=11468K"
    cache_at_floor = models.BooleanField(default=False)
    # PostgreSQL's, MyISAM's and Aria's server ran in a memory cgroup (their data live in the
    # page cache too): the limit read back from it, and the sentence the page shows (or why
    # there was no cgroup, or that an engine with a pool of its own needed none).
    memory_limit = models.TextField(blank=True)
    memory_limit_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    curve = models.JSONField(default=list, blank=True)  # [[rows, interval rows/s], ...]
    load = models.CharField(max_length=200, blank=True)  # the host's load average around it
    measured_at = models.DateTimeField()

    class Meta:
        ordering = ["comparison", "host", "scale", "engine"]
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "engine", "host", "scale"], name="one_reproduction_per_run"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.comparison} {self.engine} on {self.host} at 1/{self.scale}"
