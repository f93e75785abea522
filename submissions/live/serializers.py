from rest_framework import serializers

from submissions.live.models import WitnessToken
from submissions.models import Contest
from submissions.web.serializers import DeclarationSerializer

# What the client may say about the machine and about each interval: plain JSON, bounded.
MACHINE_MAX_KEYS = 200
# A batch's number: what the column holds (PositiveBigIntegerField).
MAX_SEQ = 2**63 - 1


class WitnessTokenCreateSerializer(serializers.Serializer):
    contest = serializers.SlugRelatedField(slug_field="slug", queryset=Contest.objects.all())


class WitnessTokenSerializer(serializers.ModelSerializer):
    contest = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = WitnessToken
        fields = ("id", "contest", "created_at", "expires_at", "revoked_at")


def _bounded_object(value) -> dict:
    if not isinstance(value, dict):
        raise serializers.ValidationError("An object is required.")
    if len(value) > MACHINE_MAX_KEYS:
        raise serializers.ValidationError(f"At most {MACHINE_MAX_KEYS} keys.")
    return value


class LiveOpenSerializer(DeclarationSerializer):
    """The declaration of POST /api/submissions/ (same field names), plus the client's key for
    the run and what the machine looks like."""

    run_key = serializers.RegexField(
        r"^[A-Za-z0-9_-]{8,64}$",
        help_text="The client's name for this run (8-64 letters, digits, - or _): a retried "
        "open finds the run it opened.",
    )
    contest = serializers.SlugField(
        required=False, help_text="Optional; must be the witness token's contest."
    )
    machine = serializers.JSONField(
        required=False, default=dict, validators=[_bounded_object], help_text="What the run sees."
    )
    command = serializers.CharField(required=False, allow_blank=True, max_length=1000)

    class Meta(DeclarationSerializer.Meta):
        fields = ("run_key", "contest", *DeclarationSerializer.Meta.fields, "machine", "command")


class LiveBatchSerializer(serializers.Serializer):
    seq = serializers.IntegerField(min_value=0, max_value=MAX_SEQ)
    lines = serializers.ListField(
        # Each line without its newline; the batch's size is bounded as a whole.
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        allow_empty=True,
        max_length=100_000,
    )
    unterminated = serializers.BooleanField(
        required=False, default=False, help_text="The last line ends the output without a newline."
    )
    machine = serializers.JSONField(required=False, default=dict, validators=[_bounded_object])


class LiveSealSerializer(serializers.Serializer):
    exit_status = serializers.IntegerField(allow_null=True, min_value=-255, max_value=255)
    batches = serializers.IntegerField(
        min_value=0, help_text="How many batches the client sent (0 to batches-1)."
    )
