from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from runner.judge.rerun import COMPARISON_RUN, RERUN_VERDICTS, VERIFICATION
from runner.verdict_reading import VerdictReading, verdict_reading


class RerunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"
    TIMED_OUT = "timed_out", "Timed out"


FINISHED = (RerunStatus.SUCCEEDED, RerunStatus.FAILED, RerunStatus.CANCELLED, RerunStatus.TIMED_OUT)


# The verdict vocabulary is the tracks' (runner/judge/rerun.py says what each means):
# the entry page, the API, the admin, the CSV and the feed all show these values and labels.
RerunVerdict = models.TextChoices(
    "RerunVerdict", [(value.upper(), (value, label)) for value, label in RERUN_VERDICTS.items()]
)


class RerunKind(models.TextChoices):
    # The judge's own words (runner/judge/rerun.py): one vocabulary for a rerun's kind.
    # Same server family, engine and settings as the entry: may verify it.
    VERIFICATION = VERIFICATION, "Verification"
    # Another engine or a server that cannot take the entry's settings: never verifies.
    COMPARISON = COMPARISON_RUN, "Comparison"


class VerificationRun(models.Model):
    """An organizer's rerun of the bundled C iiBench against a named target database, compared
    with the curve an entry claims."""

    submission = models.ForeignKey(
        "submissions.Submission", on_delete=models.CASCADE, related_name="verification_runs"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    target = models.CharField(max_length=40)
    status = models.CharField(
        max_length=12, choices=RerunStatus.choices, default=RerunStatus.QUEUED
    )
    kind = models.CharField(
        max_length=12, choices=RerunKind.choices, default=RerunKind.VERIFICATION
    )
    scale = models.PositiveIntegerField(
        default=1, help_text="k: the rerun inserts 1/k of the claim's rows, memory scaled to match."
    )
    repeats = models.PositiveSmallIntegerField(
        default=1, help_text="How many times the benchmark runs; the verdict uses their spread."
    )
    repeats_done = models.PositiveSmallIntegerField(default=0)
    # How often a worker picked the run up again after the one running it stopped (deploy,
    # crash): the benchmark then continues its table (--resume) instead of starting over.
    resumes = models.PositiveSmallIntegerField(default=0)
    settings = models.JSONField(
        default=dict, blank=True, help_text="The server's settings in effect, read back from it."
    )
    setting_changes = models.JSONField(
        default=list,
        blank=True,
        help_text="Declared settings the rerun did not apply as declared: scaled, capped, "
        "refused or renamed, each with both values.",
    )
    host = models.JSONField(
        default=dict, blank=True, help_text="CPU model, cores, memory and drive of the host."
    )
    host_comparable = models.BooleanField(
        null=True, blank=True, help_text="Whether the host is like the entry's declared one."
    )
    rows_target = models.PositiveBigIntegerField()
    rows_done = models.PositiveBigIntegerField(default=0)
    rate = models.FloatField(
        null=True, blank=True, help_text="Latest interval rate; the average once done."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The worker writes a heartbeat with every report and every few seconds while the
    # benchmark runs; the sweep fails runs whose heartbeat stopped (a worker killed mid-run).
    # While the run is queued: when it was last handed to the broker (the sweep sends it again
    # when no worker claimed it in time).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    # The verification host the run was sent to (its own queue, runner/fleet.py), chosen as a
    # live host comparable with the entry's declared one; empty: the target's general queue.
    routed_host = models.CharField(max_length=200, blank=True)
    cancel_requested = models.BooleanField(default=False)
    verdict = models.CharField(max_length=16, choices=RerunVerdict.choices, blank=True)
    ratio = models.FloatField(
        null=True,
        blank=True,
        help_text=(
            "Rerun performance / claimed performance (a time is inverted): above 1, the rerun "
            "did better. Key types: the rerun's UUID/auto-increment ratio over the claim's."
        ),
    )
    message = models.TextField(blank=True)
    log = models.TextField(blank=True, help_text="The benchmark's full output, every step's.")
    # A rerun of a track can be several steps (three key types; a crash recovery's server,
    # insert and recovery): the one running now, the last one once finished.
    step = models.CharField(max_length=40, blank=True)
    result = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the rerun measured, in the keys of the entry's track figures, "
        "with a one-line summary.",
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "heartbeat_at"], name="rerun_sweep_idx")]

    def __str__(self) -> str:
        return f"Rerun #{self.pk} of entry #{self.submission_id} on {self.target} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("rerun_detail", args=[self.pk])

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def outcome(self) -> str:
        """The one outcome shown: the verdict once a run succeeded and was judged (never a
        green "succeeded" beside a red verdict), else the status."""
        if self.status == RerunStatus.SUCCEEDED and self.verdict:
            return self.verdict
        return self.status

    @property
    def outcome_label(self) -> str:
        if self.status == RerunStatus.SUCCEEDED and self.verdict:
            return RerunVerdict(self.verdict).label
        return RerunStatus(self.status).label

    @property
    def reading(self) -> VerdictReading:
        """The verdict as a card reads it: each figure said once, the ratio in words (the
        stored words unchanged: runner/verdict_reading.py)."""
        result = self.result if isinstance(self.result, dict) else {}
        return verdict_reading(
            summary=str(result.get("summary") or ""),
            headline=str(result.get("headline") or ""),
            message=self.message,
            ratio=self.ratio,
        )

    @property
    def claim_divisor(self) -> int:
        """What the claim's rows are divided by to draw it beside this run: the scale when the
        run is the claim scaled (a private server took the entry's memory scaled), else 1 (the
        run's rows are the claim's first rows)."""
        from runner.targets import rerun_targets  # the targets read settings; models load first

        target = rerun_targets().get(self.target)
        return self.scale if target is not None and target.server and self.scale > 1 else 1

    @property
    def elapsed_seconds(self) -> float | None:
        if self.started_at is None:
            return None
        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()

    @property
    def current_repeat(self) -> int:
        """The run of the repeats under way (1-based); the last one once all are done."""
        return min(self.repeats_done + 1, self.repeats)

    @property
    def repeat_rows(self) -> list[int]:
        """The rows each of the repeats inserted so far: the done ones whole, the one under way
        as far as it got, the rest none."""
        done = min(self.repeats_done, self.repeats)
        under_way = [self.rows_done] if done < self.repeats else []
        return [self.rows_target] * done + under_way + [0] * (self.repeats - done - len(under_way))

    @property
    def eta_seconds(self) -> float | None:
        """Time left at the average pace so far, over every repeat: a lower bound, since the
        rate falls past the cliff."""
        elapsed = self.elapsed_seconds
        total = self.rows_target * self.repeats
        done = self.rows_target * self.repeats_done + self.rows_done
        if self.finished or not elapsed or done <= 0 or done >= total:
            return None
        return elapsed * (total - done) / done


class RerunSample(models.Model):
    """One report line of a rerun, stored as it arrives so the page can draw the curve growing."""

    run = models.ForeignKey(VerificationRun, on_delete=models.CASCADE, related_name="samples")
    step = models.CharField(max_length=40, blank=True)
    rows = models.PositiveBigIntegerField()
    seconds = models.FloatField()
    interval_rate = models.FloatField()
    cumulative_rate = models.FloatField()

    class Meta:
        # In the order they arrived: each step's rows start again from the first report.
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "step", "rows"], name="one_sample_per_step_row_count"
            )
        ]

    def __str__(self) -> str:
        return f"{self.rows:,} rows at {self.seconds:.1f} s"


class WorkerBeat(models.Model):
    """A worker's heartbeat for one queue it consumes (runner/heartbeats.py): the rerun form
    offers only targets whose queue a worker beat for lately, and a queued run whose queue has
    none says so."""

    worker = models.CharField(max_length=200)
    queue = models.CharField(max_length=200)
    beat_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["worker", "queue"], name="one_beat_per_worker_queue")
        ]

    def __str__(self) -> str:
        return f"{self.worker} on {self.queue} at {self.beat_at:%H:%M:%S}"


class VerificationHost(models.Model):
    """A machine that runs verification workers (runner/fleet.py): registered by its workers'
    heartbeat under the machine part of their Celery hostname (worker@NAME), with the facts
    they read or the organizer set (RERUN_HOST_FACTS). The queues it serves and what it runs
    now are read from WorkerBeat and VerificationRun."""

    name = models.CharField(max_length=200, unique=True)
    facts = models.JSONField(
        default=dict,
        help_text="CPU model, cores, memory (GB), drive kind and model, the servers it can "
        "start with their versions.",
    )
    # The facts of each target whose settings override some (RERUN_<TARGET>_HOST), merged.
    target_facts = models.JSONField(default=dict, blank=True)
    # Which facts the organizer set rather than the worker read.
    overridden = models.JSONField(default=list, blank=True)
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} (seen {self.last_seen:%Y-%m-%d %H:%M:%S})"


class ServerOptionTable(models.Model):
    """The option table a worker read from a server binary it runs (runner/option_tables.py),
    kept so that the entry page, which has no server binary, says of each declared setting what
    a verification on that server does with it: the same decision, from the same list."""

    family = models.CharField(max_length=20)  # the configuration family: "mysql", "postgresql"
    binary = models.CharField(max_length=500)
    binary_mtime_ns = models.BigIntegerField()
    options = models.JSONField(default=list)  # ServerOption fields, one dict an option
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["binary", "binary_mtime_ns"], name="one_table_per_server_binary"
            )
        ]

    def __str__(self) -> str:
        return f"{self.binary} ({len(self.options)} options, read {self.read_at:%Y-%m-%d})"


class CalibrationStatus(models.TextChoices):
    QUEUED = "queued", "Queued"  # sent to the target's queue by the sweep
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class HostCalibration(models.Model):
    """A host's run-to-run spread of every figure the classic judge compares, measured on quiet
    reruns of a reference claim (runner/calibration.py): the judge draws a verdict's bands with
    the host's fresh calibration (RERUN_CALIBRATION_MAX_AGE_DAYS) instead of the fixtures'."""

    host = models.CharField(
        max_length=200, help_text="The worker's machine, as host_of() names it."
    )
    target = models.CharField(max_length=40)
    reference = models.CharField(
        max_length=40, help_text="The reference setup (its scale band), runner/calibration.py."
    )
    scale = models.PositiveIntegerField(help_text="k: the reference claim's rows over the runs'.")
    rows = models.PositiveBigIntegerField(help_text="The rows each calibration run inserts.")
    status = models.CharField(
        max_length=10, choices=CalibrationStatus.choices, default=CalibrationStatus.RUNNING
    )
    runs = models.PositiveSmallIntegerField(default=0, help_text="The runs the spreads are from.")
    spreads = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per figure, its spread: {"cliff_fraction": {"sigma": 0.02, "dof": 4}, ...} '
        "(a rate's or a ratio's sigma in logs).",
    )
    figures = models.JSONField(default=list, blank=True, help_text="Each run's figures.")
    other_work = models.FloatField(
        null=True,
        blank=True,
        help_text="The most cores other work kept busy beside a run (steal time counted).",
    )
    steal = models.FloatField(
        null=True, blank=True, help_text="The most cores the hypervisor stole during a run."
    )
    message = models.TextField(blank=True)
    log = models.TextField(blank=True, help_text="The runs' output, every repeat's.")
    started_at = models.DateTimeField(default=timezone.now)
    measured_at = models.DateTimeField(null=True, blank=True)
    reference_rate = models.FloatField(
        null=True,
        blank=True,
        help_text="The host's quiet rate (rows/s) of the fixed reference workload, run beside "
        "the calibration's runs (runner/reference_runs.py): a verification's references are "
        "set against it.",
    )
    stale = models.TextField(
        blank=True,
        help_text="Why this calibration no longer holds though younger than its maximum age: "
        "the host's reference speed moved (runner/calibration.py, `calibration_drift`).",
    )

    class Meta:
        ordering = ["-started_at"]
        indexes = [
            models.Index(fields=["host", "target", "status"], name="calibration_host_idx"),
        ]

    def __str__(self) -> str:
        return f"Calibration of {self.host} on {self.target} at 1/{self.scale} ({self.status})"
