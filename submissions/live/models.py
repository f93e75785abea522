from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from submissions.models import Contest, Submission


class LiveState(models.TextChoices):
    RUNNING = "running", "running"
    STALLED = "stalled", "stalled"
    ABANDONED = "abandoned", "abandoned"
    SEALED = "sealed", "sealed"


class WitnessToken(models.Model):
    """A secret that lets a witness client stream runs into one contest and do nothing else.
    Only its SHA-256 is stored: the token is shown once, when it is made."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="witness_tokens"
    )
    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="witness_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Witness token #{self.pk} ({self.user}, {self.contest.slug})"

    def usable(self, now=None) -> bool:
        now = now or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)


class LiveRun(models.Model):
    """A run streamed as it happens: the declaration, what the machine looked like, and the
    log as appended batches. Sealing turns it into an ordinary Submission (`submission`)."""

    contest = models.ForeignKey(Contest, on_delete=models.PROTECT, related_name="live_runs")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="live_runs"
    )
    token = models.ForeignKey(
        WitnessToken, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    # The client's name for this run: a retried open (its answer lost) finds the same run.
    run_key = models.CharField(max_length=64)
    declared = models.JSONField(default=dict)
    machine = models.JSONField(default=dict, blank=True)
    command = models.CharField(max_length=1000, blank=True)

    opened_at = models.DateTimeField(default=timezone.now)
    last_batch_at = models.DateTimeField(null=True, blank=True)
    last_line_at = models.DateTimeField(null=True, blank=True)
    next_seq = models.PositiveBigIntegerField(default=0)
    line_count = models.PositiveBigIntegerField(default=0)
    byte_count = models.PositiveBigIntegerField(default=0)
    # The log's first lines, kept whole: each new batch is parsed behind them for the live curve.
    head = models.TextField(blank=True)
    # What a new batch is parsed behind, so an append reads only its own lines: the head with
    # its `# setting` lines left empty (same line numbers, a fraction of the parse), and the
    # last report line streamed after the head, with its line number.
    context = models.TextField(blank=True)
    last_report = models.TextField(blank=True)
    last_report_line = models.PositiveBigIntegerField(default=0)

    rows = models.PositiveBigIntegerField(default=0)
    elapsed_seconds = models.FloatField(default=0)
    current_rate = models.FloatField(null=True, blank=True)
    cumulative_rate = models.FloatField(null=True, blank=True)

    sealed_at = models.DateTimeField(null=True, blank=True)
    exit_status = models.IntegerField(null=True, blank=True)
    seal_verdicts = models.JSONField(default=list, blank=True)
    seal_message = models.CharField(max_length=500, blank=True)
    # True when sealed with the clock agreeing and the client's machine facts agreeing: the trust
    # level public words call `streamed` (entries/trust.py). The old name stays: renaming the
    # column would migrate every stored run and tell no one anything more.
    witnessed = models.BooleanField(default=False)
    submission = models.OneToOneField(
        Submission, on_delete=models.SET_NULL, null=True, blank=True, related_name="live_run"
    )

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "run_key"], name="one_live_run_per_key"),
        ]
        indexes = [models.Index(fields=["contest", "sealed_at"], name="contest_live_runs_idx")]

    def __str__(self) -> str:
        return f"Live run #{self.pk} ({self.contest.slug})"

    def get_absolute_url(self) -> str:
        return reverse("live_run_detail", args=[self.pk])

    def state(self, now=None) -> LiveState:
        if self.sealed_at is not None:
            return LiveState.SEALED
        silent = ((now or timezone.now()) - (self.last_line_at or self.opened_at)).total_seconds()
        if silent >= settings.LIVE_ABANDONED_SECONDS:
            return LiveState.ABANDONED
        if silent >= settings.LIVE_STALLED_SECONDS:
            return LiveState.STALLED
        return LiveState.RUNNING


class LiveBatch(models.Model):
    """One append, as received: its lines, the registry's own receipt time and the machine's
    counters over the interval the client measured."""

    # No index of its own: one_batch_per_seq's (run, seq) serves every lookup by run, and an
    # append (the hottest write) then updates one index fewer.
    run = models.ForeignKey(
        LiveRun, on_delete=models.CASCADE, related_name="batches", db_index=False
    )
    seq = models.PositiveBigIntegerField()
    received_at = models.DateTimeField(default=timezone.now)
    first_line = models.PositiveBigIntegerField()
    line_count = models.PositiveIntegerField()
    text = models.TextField(blank=True)
    digest = models.CharField(max_length=64)
    machine = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="one_batch_per_seq")]

    def __str__(self) -> str:
        return f"Batch {self.seq} of live run #{self.run_id}"


class LiveSample(models.Model):
    """A report line of a live run as the curve shows it while it streams."""

    # No index of its own: one_sample_per_line's (run, line) serves every lookup by run, and
    # each sample an append writes updates one index fewer.
    run = models.ForeignKey(
        LiveRun, on_delete=models.CASCADE, related_name="samples", db_index=False
    )
    line = models.PositiveBigIntegerField()
    rows = models.PositiveBigIntegerField()
    seconds = models.FloatField()
    interval_rate = models.FloatField(null=True)
    cumulative_rate = models.FloatField(null=True)
    # What the report's interval cost, as its log prints it (the C benchmark's cost columns,
    # Python's max_i: logparse.model.COST_FIELDS); only the measured ones, absent otherwise.
    cost = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "line"], name="one_sample_per_line")]

    def __str__(self) -> str:
        return f"{self.rows:,} rows of live run #{self.run_id}"
