from django.conf import settings
from django.db import models
from django.urls import reverse


class RerunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"
    TIMED_OUT = "timed_out", "Timed out"


FINISHED = (RerunStatus.SUCCEEDED, RerunStatus.FAILED, RerunStatus.CANCELLED, RerunStatus.TIMED_OUT)


class RerunVerdict(models.TextChoices):
    REPRODUCED = "reproduced", "Reproduced"
    NOT_REPRODUCED = "not_reproduced", "Not reproduced"
    INCONCLUSIVE = "inconclusive", "Inconclusive"


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
