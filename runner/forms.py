from django import forms
from django.conf import settings


def target_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in settings.RERUN_TARGETS]


class RerunForm(forms.Form):
    target = forms.ChoiceField(choices=target_choices)
    rows = forms.IntegerField(
        min_value=1_000,
        initial=1_000_000,
        help_text="Rows to insert: per table for key types, to load for bulk loading, before "
        "the crash for crash recovery.",
    )
