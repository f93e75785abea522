from django import forms

from runner.heartbeats import served_queues
from runner.judge.resolution import DEFAULT_REPEATS
from runner.targets import rerun_targets


def target_choices() -> list[tuple[str, str]]:
    """The targets a live worker serves (its heartbeat for the target's queue): a run sent to
    a queue no worker listens to would sit queued for ever."""
    served = served_queues()
    return [(name, name) for name, target in rerun_targets().items() if target.queue in served]


class RerunForm(forms.Form):
    """The same choices as the API's: a target, the scale 1/k or the rows, the repeats, and
    whether a comparison run (never a verification) is asked for."""

    target = forms.ChoiceField(choices=target_choices)
    scale = forms.IntegerField(
        min_value=1,
        max_value=1_000_000,
        required=False,
        help_text="k: insert 1/k of the claim's rows, memory scaled to match. Empty: the "
        "smallest k whose runs fit half the target's time limit and keep the memory at or "
        "above its floor (refused, saying why, when none does).",
    )
    rows = forms.IntegerField(
        min_value=1_000,
        required=False,
        help_text="Instead of a scale: rows to insert (per table for key types, to load for "
        "bulk loading, before the crash for crash recovery).",
    )
    repeats = forms.IntegerField(
        min_value=1,
        max_value=10,
        required=False,
        help_text=f"Empty: {DEFAULT_REPEATS} at a reduced scale, 1 at full scale.",
    )
    comparison = forms.BooleanField(
        required=False,
        help_text="Run on a target that cannot verify this entry (another engine, a shared "
        "server): labelled a comparison, never a verification.",
    )
