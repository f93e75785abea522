from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from submissions import tracks
from submissions.contests.rule_versions import contest_rule_set
from submissions.entries.declaration import DECLARATION_GROUPS, DECLARED_FIELDS
from submissions.entries.from_log import declaration_caps
from submissions.models import Contest, Submission
from submissions.web.middleware import too_large_message


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


def track_form_field(field: tracks.TrackField) -> forms.Field:
    options = {"label": field.label, "help_text": field.help_text, "required": field.required}
    if field.kind == "int":
        return forms.IntegerField(**options)
    if field.kind == "float":
        return forms.FloatField(**options)
    return forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "class": "mono"}), strip=True, **options
    )


class DeclarationForm(forms.ModelForm):
    """What an entrant declares about the run: the machine, the software and the solution,
    and what the contest's track asks beyond them (crash recovery: the rate, rows and time)."""

    def __init__(self, *args, contest: Contest | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        contest = contest or self.instance.contest
        self.track = contest.track
        # The contest's caps beside the fields they limit (form_fields.html shows `cap`).
        for name, cap in declaration_caps(contest_rule_set(contest)).items():
            if name in self.fields:
                self.fields[name].cap = cap
        declared = self.instance.track_declared if self.instance.pk else {}
        for field in self.track.fields:
            self.fields[field.name] = track_form_field(field)
            if field.name in declared:
                self.initial.setdefault(field.name, declared[field.name])

    def fieldsets(self):
        """The log first where the form takes one (the entrant uploads it first and the fields it
        states are filled from it), then the declaration, then what the track asks beyond it."""
        if "log" in self.fields:
            yield "iiBench output", [self["log"]]
        for legend, names in DECLARATION_GROUPS:
            bound = [self[name] for name in names if name in self.fields]
            if bound:
                yield legend, bound
        if self.track.fields:
            yield self.track.label, [self[field.name] for field in self.track.fields]

    def clean(self):
        cleaned = super().clean()
        raw = {field.name: cleaned.get(field.name) for field in self.track.fields}
        try:
            tracks.clean_declared(self.track, raw)
        except tracks.TrackInputError as error:
            if error.field in self.fields and error.field not in self.errors:
                self.add_error(error.field, error.message)
        return cleaned

    def declared(self) -> dict:
        """The run's fields and the track's, as the services take them."""
        names = [*DECLARED_FIELDS, *(field.name for field in self.track.fields)]
        return {name: self.cleaned_data.get(name) for name in names}

    class Meta:
        model = Submission
        fields = DECLARED_FIELDS
        # The model's field names capitalised would read "Cpu model", "Raid level": the
        # labels name them as people write them (field and API names stay).
        labels = {
            "cpu_model": "CPU model",
            "raid_level": "RAID level",
        }
        widgets = {
            "solution_description": forms.Textarea(attrs={"rows": 8}),
            "server_config": forms.Textarea(attrs={"rows": 6, "class": "mono"}),
        }


class SubmissionForm(DeclarationForm):
    log = forms.FileField(
        label="iiBench output",
        help_text="The benchmark's output as printed: plain text or .gz.",
    )

    def __init__(self, *args, kept_log=None, **kwargs):
        super().__init__(*args, **kwargs)
        # The log kept from a refused try (submissions.entries.kept_logs): used when none is chosen.
        self.kept_log = kept_log
        if kept_log is not None:
            self.fields["log"].required = False
        if not self.track.log_required:
            self.fields["log"].required = False
            self.fields["log"].help_text = (
                "Optional for this track: the output of the insert run, plain text or .gz. "
                "When attached, it must agree with the figures declared above."
            )

    def clean_log(self):
        log = self.cleaned_data["log"] or self.kept_log
        if log is None:
            return None
        if log.size > settings.LOG_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(too_large_message(log.size))
        if log.size == 0:
            raise forms.ValidationError("The file is empty: attach the iiBench output.")
        return log
