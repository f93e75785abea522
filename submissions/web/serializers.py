import threading
from functools import lru_cache
from operator import attrgetter

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.manager import BaseManager
from django.urls import get_script_prefix, get_urlconf, reverse
from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.fields import SkipField, empty
from rest_framework.relations import PKOnlyObject

from submissions import tracks
from submissions.contests.rule_versions import contest_rule_set, rule_version_latest
from submissions.entries.declaration import DECLARED_FIELDS
from submissions.entries.outcome import OUTCOME_STATE_HELP, OUTCOME_WORDS_HELP
from submissions.entries.trust import TRUST_LEVELS, TRUST_SENTENCES, entry_trust
from submissions.measures.costs import PER_ROW_COSTS
from submissions.models import Contest, RuleVersion, Submission
from submissions.wings import entry_stream


class RuleVersionSerializer(serializers.ModelSerializer):
    """A version of a contest's rules: its number, when it was made and what changed from the
    one before ("memory cap 16 -> 32 GB")."""

    changed_at = serializers.DateTimeField(source="created_at")

    class Meta:
        model = RuleVersion
        fields = ("number", "changed_at", "changes")


class ContestSerializer(serializers.ModelSerializer):
    rules = serializers.SerializerMethodField()
    rules_version = serializers.SerializerMethodField()

    class Meta:
        model = Contest
        fields = (
            "slug", "title", "workload", "deadline", "results_published_at", "rules",
            "rules_version",
        )  # fmt: skip

    def get_rules_version(self, contest: Contest) -> dict | None:
        version = rule_version_latest(contest)
        return RuleVersionSerializer(version).data if version else None

    def get_rules(self, contest: Contest) -> dict:
        return {
            "target_rows": contest.target_rows,
            "rows_per_commit": contest.rows_per_commit,
            "max_rows_per_insert": contest.max_rows_per_insert,
            "report_every_rows": contest.report_every_rows,
            "report_every_seconds": contest.report_every_seconds,
            "indexes_from_start": contest.indexes_from_start,
            "max_sockets": contest.max_sockets,
            "max_cores": contest.max_cores,
            "max_memory_gb": contest.max_memory_gb,
            "max_drives": contest.max_drives,
            "require_direct_attached": contest.require_direct_attached,
            "raid_allowed": contest.raid_allowed,
            "required_mysql_version": contest.required_mysql_version,
            "preferred_os": contest.preferred_os,
            "timezone": contest.timezone,
            "terminal_window_rows": contest.terminal_window_rows,
            "track_rules": dict(contest_rule_set(contest).track),
        }


def _track_field(field: tracks.TrackField) -> serializers.Field:
    tracks_using = ", ".join(
        track.label for track in tracks.TRACKS.values() if field in track.fields
    )
    return serializers.CharField(
        required=False,
        allow_blank=True,
        write_only=True,
        trim_whitespace=False,
        help_text=f"{field.label} ({tracks_using}). {field.help_text}",
    )


class DeclarationSerializer(serializers.ModelSerializer):
    """The run's declaration, plus every track's declared fields: the contest's track keeps
    its own (the service checks them) and says which it requires."""

    class Meta:
        model = Submission
        fields = DECLARED_FIELDS

    def get_fields(self):
        fields = super().get_fields()
        for name, field in tracks.ALL_FIELDS.items():
            fields[name] = _track_field(field)
        return fields

    def to_internal_value(self, data):
        # Clients written before the server family existed send `mysql_version`: still a MySQL
        # version, so it is read as one rather than refused.
        if "mysql_version" in data and "server_version" not in data:
            data = {key: data.get(key) for key in data}
            data["server_version"] = data.pop("mysql_version")
            data.setdefault("server_family", "mysql")
        return super().to_internal_value(data)


class SubmissionCreateSerializer(DeclarationSerializer):
    contest = serializers.SlugRelatedField(slug_field="slug", queryset=Contest.objects.all())
    log = serializers.FileField(
        allow_empty_file=False,
        required=False,
        help_text=(
            "The benchmark's output. Required unless the contest's track reads declared figures."
        ),
    )

    class Meta(DeclarationSerializer.Meta):
        fields = ("contest", *DECLARED_FIELDS, "log")


class VerdictSerializer(serializers.Serializer):
    rule = serializers.CharField()
    status = serializers.ChoiceField(choices=["pass", "fail", "warn", "unverified"])
    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)


def per_row_cost_fields(*, entry: bool) -> dict[str, serializers.Field]:
    """The per-row cost fields, by the entry's names (entry=True) or the board's."""
    return {
        cost.figure if entry else cost.board: serializers.FloatField(
            allow_null=True, read_only=True, help_text=cost.meaning
        )
        for cost in PER_ROW_COSTS
        if entry or cost.board
    }


class SummarySerializer(serializers.Serializer):
    format = serializers.CharField(source="log_format")
    rows = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField(help_text="Measured: the log's own figure.")
    elapsed_source = serializers.CharField(help_text="The line (and column) it was read from.")
    average_rate = serializers.FloatField()
    terminal_rate = serializers.FloatField(allow_null=True)
    terminal_window_rows = serializers.IntegerField()
    terminal_window_start_row = serializers.IntegerField()
    terminal_window_basis = serializers.CharField(help_text="How the window was sized.")
    seconds_to_target = serializers.FloatField(
        allow_null=True, help_text="Time to the target rows: measured, or estimated (see below)."
    )
    estimated_seconds_to_target = serializers.FloatField(
        source="seconds_to_target", allow_null=True, help_text="Deprecated name of the above."
    )
    estimated = serializers.BooleanField(help_text="seconds_to_target is extrapolated.")
    estimate_basis = serializers.CharField(help_text="What an estimate extrapolates.")
    excerpt = serializers.BooleanField(help_text="The log does not start at the run's start.")
    demo = serializers.CharField(help_text='"demo" or "synthetic": not an entrant\'s result.')
    track_figures = serializers.JSONField(
        help_text=(
            "The figures of the contest's track (submissions/tracks); {} for a track without "
            "figures of its own."
        )
    )
    db_size_bytes = serializers.IntegerField(
        allow_null=True, help_text="Table and indexes at the last report; null: not in the log."
    )

    def get_fields(self):
        # The per-row costs come from their one table (measures/costs.py), after the size.
        return {**super().get_fields(), **per_row_cost_fields(entry=True)}


class SubmissionSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    contest = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    summary = SummarySerializer(source="*", read_only=True)
    verdicts = VerdictSerializer(many=True, read_only=True)
    trust = serializers.SerializerMethodField(
        help_text=f"One of {', '.join(TRUST_LEVELS)}: uploaded, streamed as it ran (its clock "
        "agreed with the registry's; the machine facts as reported by the client), or reproduced "
        "by a verification rerun. `trust_means` says what the level proves and does not."
    )
    trust_means = serializers.SerializerMethodField(
        help_text="What the entry's trust level proves, and what it does not, in one sentence."
    )
    live = serializers.SerializerMethodField(
        help_text="running, stalled, abandoned or sealed for a streamed run; null for an upload."
    )
    rules_version = RuleVersionSerializer(
        read_only=True,
        allow_null=True,
        help_text="The rules the verdicts were made under; null: judged before versions were kept.",
    )
    edited_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="The entrant's last change; null: never edited."
    )
    verified = serializers.SerializerMethodField(
        help_text="An organizer's verification rerun reproduced this result's curve as it is "
        "declared now and found the solution no faster than claimed (`verification_outcome` "
        "says by how much, on which host, at which scale)."
    )
    verification = serializers.SerializerMethodField(help_text=OUTCOME_STATE_HELP)
    verification_outcome = serializers.SerializerMethodField(help_text=OUTCOME_WORDS_HELP)

    class Meta:
        model = Submission
        fields = (
            "id", "url", "contest", "server_family", "server_version", "storage_engine", "engine",
            "eligible", "verified", "verification", "verification_outcome", "trust",
            "trust_means", "live", "summary", "verdicts",
            "rules_version", "edited_at",
        )  # fmt: skip
        read_only_fields = fields

    # The entry whose outcome, trust and stream were read last, with them: five fields read
    # each of them, a list's row read them once each (a row's fields are written in turn).
    _read_of = None

    def _facts(self, submission: Submission) -> tuple:
        facts = self._read_of
        if facts is None or facts[0] is not submission:
            stream = entry_stream(submission)
            facts = (
                submission,
                submission.verification_outcome,
                entry_trust(submission),
                stream.state if stream is not None else None,
            )
            self._read_of = facts
        return facts

    def get_verified(self, submission: Submission) -> bool:
        return self._facts(submission)[1].verified

    def get_verification(self, submission: Submission) -> str:
        return self._facts(submission)[1].state

    def get_verification_outcome(self, submission: Submission) -> str:
        return self._facts(submission)[1].words

    def get_trust(self, submission: Submission) -> str:
        return self._facts(submission)[2]

    def get_trust_means(self, submission: Submission) -> str:
        return TRUST_SENTENCES[self._facts(submission)[2]]

    def get_live(self, submission: Submission) -> str | None:
        return self._facts(submission)[3]

    def get_url(self, submission: Submission) -> str:
        request = self.context.get("request")
        path = entry_path(submission.pk)
        return request.build_absolute_uri(path) if request else path


def entry_path(pk: int) -> str:
    """An entry's `get_absolute_url()`, its page's path reversed once per URLconf and script
    prefix (a list of entries reversed it once a row)."""
    head, tail = _entry_path_parts(get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
    return f"{head}{pk}{tail}"


_MARK = 987_654_321


@lru_cache(maxsize=16)
def _entry_path_parts(urlconf, prefix: str) -> tuple[str, str]:
    """An entry page's path around its id, reversed once per URLconf and script prefix: a
    list of 50 entries reversed it once a row."""
    head, tail = reverse("submission_detail", args=[_MARK], urlconf=urlconf).split(str(_MARK))
    return head, tail


class LeaderboardRowSerializer(serializers.Serializer):
    """Documents a leaderboard row (the view builds rows as plain dicts, for speed)."""

    rank = serializers.IntegerField(allow_null=True, help_text="Null: a reference or not ranked.")
    id = serializers.IntegerField(help_text="The entry's id; a reference row's own id.")
    entrant = serializers.CharField(
        help_text='The public name, "Anonymous entrant" unless opted in.'
    )
    storage_engine = serializers.CharField()
    elapsed_seconds = serializers.FloatField(
        allow_null=True, help_text="Measured elapsed time; null when only an estimate exists."
    )
    seconds_to_target = serializers.FloatField(
        allow_null=True, help_text="Time to the target rows: measured, or estimated."
    )
    estimate_basis = serializers.CharField(allow_blank=True, help_text="What an estimate uses.")
    demo = serializers.CharField(allow_blank=True, help_text='"demo", "synthetic" or "".')
    terminal_rate = serializers.FloatField(allow_null=True)
    average_rate = serializers.FloatField(allow_null=True)
    verified = serializers.BooleanField(
        help_text="A verification rerun reproduced it as it is declared now."
    )
    verification = serializers.CharField(allow_blank=True, help_text=OUTCOME_STATE_HELP)
    verification_outcome = serializers.CharField(allow_blank=True, help_text=OUTCOME_WORDS_HELP)
    reference = serializers.BooleanField(help_text="A published result from the seeds.")
    hardware = serializers.CharField()
    estimated = serializers.BooleanField(help_text="seconds_to_target is extrapolated.")
    reason = serializers.CharField(
        help_text="Why an entry is not ranked; a reference row's note.", allow_blank=True
    )
    track_class = serializers.CharField(
        allow_blank=True, help_text='The track\'s class, e.g. "keys=4, row length=64"; "" if none.'
    )
    track_metric = serializers.FloatField(
        allow_null=True,
        help_text="The value the track ranks by (null when it ranks by the run's figures).",
    )
    track_figures = serializers.JSONField(
        help_text="The track's figures; {} when it has none of its own."
    )
    size_gib = serializers.FloatField(
        allow_null=True, help_text="Database size at the end (GiB); null: not measured."
    )

    def get_fields(self):
        return {**super().get_fields(), **per_row_cost_fields(entry=False)}


class LeaderboardSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LeaderboardRowSerializer(many=True)


class TokenListingSerializer(serializers.Serializer):
    """A token as its owner sees it listed: never the key, only its first characters."""

    kind = serializers.CharField()
    id = serializers.CharField()
    prefix = serializers.CharField()
    created = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    expired = serializers.BooleanField()
    scope = serializers.CharField()


class TokenListSerializer(serializers.Serializer):
    tokens = TokenListingSerializer(many=True)


class TokenObtainSerializer(AuthTokenSerializer):
    """A username no account can have is refused before the log-in is tried: a failed log-in
    is recorded (django-axes) in a column of 255 characters."""

    username = serializers.CharField(
        label="Username", write_only=True, max_length=get_user_model().username.field.max_length
    )
    password = serializers.CharField(
        label="Password",
        style={"input_type": "password"},
        trim_whitespace=False,
        write_only=True,
        max_length=4096,
    )


# DRF's fields whose output is the value as one plain conversion (their to_representation).
_PLAIN = {
    serializers.FloatField: float,
    serializers.IntegerField: int,
    serializers.CharField: str,
}


_writers = threading.local()


def kept_writer(serializer_class: type[serializers.Serializer], context: dict):
    """`plain_writer(serializer_class(context=context))`, its fields set up once per thread
    and serializer (DRF copies every declared field for each serializer made: a page's list
    spent a tenth of its time there); each call gives the serializer this request's context."""
    kept = getattr(_writers, "kept", None)
    if kept is None:
        kept = _writers.kept = {}
    found = kept.get(serializer_class)
    if found is None:
        serializer = serializer_class(context=context)
        found = kept[serializer_class] = (serializer, plain_writer(serializer))
    serializer, write = found
    serializer._context = context
    serializer._read_of = None  # an entry of an earlier request is never taken for this one
    return write


def plain_writer(serializer: serializers.Serializer):
    """A function writing what `serializer.to_representation(instance)` writes, without DRF's
    per-field machinery at each row (a readable-fields generator, `get_attribute`'s checks, a
    call per field): each field's reading and conversion chosen once, for a list of entries
    (the API's list of 50 spent half its time in it). A field DRF reads otherwise than by a
    plain attribute (a related field's primary key, a callable, a dict's key) goes through
    DRF's own `get_attribute`; the output is the same (tests/web/test_api_plain_rows.py)."""
    steps = [
        (field.field_name, _reader(field), _writer(field)) for field in serializer._readable_fields
    ]

    def write(instance) -> dict:
        out = {}
        for name, read, convert in steps:
            try:
                value = read(instance)
            except SkipField:
                continue
            out[name] = None if value is None else convert(value)
        return out

    return write


def _reader(field: serializers.Field):
    if field.source == "*":
        return lambda instance: instance
    if isinstance(field, serializers.RelatedField) and field.use_pk_only_optimization():
        return lambda instance: _drf_value(field, instance)
    plain = attrgetter(".".join(field.source_attrs))
    key = field.source_attrs[0] if len(field.source_attrs) == 1 else None
    # A key a dict lacks (a verdict without a line): DRF's answer, the default first, then
    # null where null is allowed; anything else as DRF answers it.
    null_when_missing = field.default is empty and field.allow_null

    def read(instance):
        if type(instance) is dict and key is not None:
            value = instance.get(key, _ABSENT)
            if value is _ABSENT:
                return None if null_when_missing else field.get_attribute(instance)
        else:
            try:
                value = plain(instance)
            except (AttributeError, KeyError, TypeError):
                return field.get_attribute(instance)
        return field.get_attribute(instance) if callable(value) else value

    return read


_ABSENT = object()


def _drf_value(field: serializers.Field, instance):
    value = field.get_attribute(instance)
    return None if isinstance(value, PKOnlyObject) and value.pk is None else value


def _writer(field: serializers.Field):
    if isinstance(field, serializers.ListSerializer) and _plain_fields(field.child):
        return _dicts_writer(field.child)
    if isinstance(field, serializers.ListSerializer):
        child = plain_writer(field.child)
        return lambda values: [
            child(item) for item in (values.all() if isinstance(values, BaseManager) else values)
        ]
    if isinstance(field, serializers.Serializer):
        return plain_writer(field)
    if type(field) is serializers.SerializerMethodField:
        # Its method, looked up once (DRF looks it up on the serializer at each value).
        return getattr(field.parent, field.method_name)
    if type(field) is serializers.BooleanField:
        return lambda value: value if type(value) is bool else field.to_representation(value)
    if type(field) is serializers.ChoiceField:
        # DRF's: "" as it is, else the choice's value by its text (a plain string here).
        choices = field.choice_strings_to_values
        return lambda value: (
            choices.get(value, value)
            if type(value) is str and value
            else field.to_representation(value)
        )
    return _PLAIN.get(type(field), field.to_representation)


def _plain_fields(serializer) -> bool:
    """Whether `serializer` writes each of its fields from one key of its own (a verdict's)."""
    return isinstance(serializer, serializers.Serializer) and all(
        field.source != "*"
        and len(field.source_attrs) == 1
        and not isinstance(field, serializers.RelatedField | serializers.BaseSerializer)
        and type(field) is not serializers.SerializerMethodField
        for field in serializer._readable_fields
    )


def _dicts_writer(child: serializers.Serializer):
    """A list's writer whose items are, as a rule, dicts (an entry's verdicts, a dozen a row):
    each key read and converted in one loop, as `plain_writer` would; an item of another kind
    goes through `plain_writer`."""
    steps = [
        (
            field.field_name,
            field.source_attrs[0],
            field.default is empty and field.allow_null,
            _writer(field),
            field,
        )
        for field in child._readable_fields
    ]
    other = plain_writer(child)

    def write_item(item) -> dict:
        if type(item) is not dict:
            return other(item)
        out = {}
        for name, key, null_when_missing, convert, field in steps:
            value = item.get(key, _ABSENT)
            if value is _ABSENT:
                if null_when_missing:
                    out[name] = None
                    continue
                try:
                    value = field.get_attribute(item)
                except SkipField:
                    continue
            elif callable(value):
                value = field.get_attribute(item)
            out[name] = None if value is None else convert(value)
        return out

    return lambda values: [
        write_item(item) for item in (values.all() if isinstance(values, BaseManager) else values)
    ]
