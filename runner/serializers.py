from django.urls import reverse
from rest_framework import serializers

from runner.heartbeats import queued_without_worker
from runner.models import RerunSample, VerificationRun


class RerunRequestSerializer(serializers.Serializer):
    target = serializers.CharField(max_length=40)
    scale = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False)
    rows = serializers.IntegerField(min_value=1_000, required=False)
    repeats = serializers.IntegerField(min_value=1, max_value=10, required=False)
    comparison = serializers.BooleanField(required=False, default=False)


class RerunSerializer(serializers.ModelSerializer):
    verdict = serializers.SerializerMethodField()
    verdict_label = serializers.SerializerMethodField()
    outcome = serializers.CharField(
        read_only=True,
        help_text="The one outcome to show: the verdict once judged, else the status.",
    )
    log_url = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    warning = serializers.SerializerMethodField(
        help_text="Why a queued run may wait for ever (no live worker serves its queue); "
        '"" otherwise.'
    )
    headline = serializers.SerializerMethodField(
        help_text="The verdict in one sentence (its scale, host and why), before the message."
    )
    reading = serializers.SerializerMethodField(
        help_text="The verdict as the entry page's card reads it (message, result and headline "
        "above are the judge's words as stored): measured, the measured summary less what the "
        "headline said; message, the message with each cliff place said once; ratio, the ratio "
        'in words ("20% slower than the claim"), "" without one.'
    )
    resolution = serializers.SerializerMethodField(
        help_text="What this verification could refute: too_fast_factor, the smallest factor "
        "too fast, and cliff_shift, the smallest shift of the cliff (a fraction of the run), "
        "each null where the track's judge does not measure it (then `basis` says why: "
        "'not stated'); null before a verdict."
    )
    extrapolated = serializers.SerializerMethodField(
        help_text="Null within the range the scaling rule was measured on (docs/scaling.md); "
        "else the sentence naming what lies outside it (such a verification is at best "
        "shape_only)."
    )
    elapsed_seconds = serializers.FloatField(
        read_only=True, help_text="Since the run started (until it finished); null before."
    )
    eta_seconds = serializers.FloatField(
        read_only=True,
        help_text="Time left at the average pace so far over every repeat (a lower bound: the "
        "rate falls past the cliff); null when not running.",
    )

    class Meta:
        model = VerificationRun
        fields = (
            "id",
            "url",
            "submission",
            "target",
            "kind",
            "scale",
            "repeats",
            "repeats_done",
            "settings",
            "setting_changes",
            "host",
            "host_comparable",
            "routed_host",
            "status",
            "rows_done",
            "rows_target",
            "rate",
            "started_at",
            "finished_at",
            "elapsed_seconds",
            "eta_seconds",
            "resumes",
            "verdict",
            "verdict_label",
            "outcome",
            "ratio",
            "message",
            "warning",
            "headline",
            "reading",
            "resolution",
            "extrapolated",
            "log_url",
            "step",
            "result",
        )
        extra_kwargs = {
            "host": {
                "help_text": "CPU model, cores, memory and drive of the host, how it compares with "
                "the entry's; for a private server, memory_limit (\"memory limit 48 MB read back "
                'from the cgroup", or why there is none), memory_limit_bytes and '
                "page_cache_bytes (the files' page cache charged to its cgroup at the end)."
            }
        }

    def get_verdict(self, run: VerificationRun) -> str | None:
        return run.verdict or None

    def get_verdict_label(self, run: VerificationRun) -> str | None:
        return run.get_verdict_display() or None

    def get_headline(self, run: VerificationRun) -> str | None:
        found = run.result.get("headline") if isinstance(run.result, dict) else None
        return found if isinstance(found, str) and found else None

    def get_reading(self, run: VerificationRun) -> dict:
        return run.reading.as_dict()

    def get_resolution(self, run: VerificationRun) -> dict | None:
        found = run.result.get("resolution") if isinstance(run.result, dict) else None
        return found if isinstance(found, dict) else None

    def get_extrapolated(self, run: VerificationRun) -> str | None:
        found = run.result.get("extrapolated") if isinstance(run.result, dict) else None
        return found if isinstance(found, str) and found else None

    def _absolute(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def get_log_url(self, run: VerificationRun) -> str:
        return self._absolute(reverse("rerun_log", args=[run.pk]))

    def get_url(self, run: VerificationRun) -> str:
        return self._absolute(reverse("api_rerun", args=[run.pk]))

    def get_warning(self, run: VerificationRun) -> str:
        return queued_without_worker(run)


class RerunSampleSerializer(serializers.ModelSerializer):
    class Meta:
        model = RerunSample
        fields = ("id", "step", "rows", "seconds", "interval_rate", "cumulative_rate")
