from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from submissions.middleware import too_large_message
from submissions.models import Submission
from submissions.services import DECLARED_FIELDS


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class DeclarationForm(forms.ModelForm):
    """What an entrant declares about the run: the machine, the software and the solution."""

    FIELDSETS = (
        ("You", ("entrant_name", "email", "publish")),
        (
            "Hardware",
            (
                "cpu_model",
                "sockets",
                "cores",
                "cpu_ghz",
                "memory_gb",
                "drives",
                "drive_kind",
                "raid_level",
                "direct_attached",
            ),
        ),
        ("Software", ("os", "mysql_version", "storage_engine", "storage_engine_version")),
        ("Solution", ("solution_description", "server_config")),
        ("iiBench output", ("log",)),
    )

    def fieldsets(self):
        for legend, names in self.FIELDSETS:
            bound = [self[name] for name in names if name in self.fields]
            if bound:
                yield legend, bound

    class Meta:
        model = Submission
        fields = DECLARED_FIELDS
        widgets = {
            "solution_description": forms.Textarea(attrs={"rows": 8}),
            "server_config": forms.Textarea(attrs={"rows": 6, "class": "mono"}),
        }


class SubmissionForm(DeclarationForm):
    log = forms.FileField(
        label="iiBench output",
        help_text="The benchmark's output as printed: plain text or .gz.",
    )

    def clean_log(self):
        log = self.cleaned_data["log"]
        if log.size > settings.LOG_UPLOAD_MAX_BYTES:
            raise forms.ValidationError(too_large_message(log.size))
        if log.size == 0:
            raise forms.ValidationError("The file is empty: attach the iiBench output.")
        return log
