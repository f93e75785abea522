"""A contest's reference rows: the seeds' published results of its workload, placed among the
entries."""

from __future__ import annotations

from django.db import transaction

from submissions.contests.rule_versions import contest_rule_set
from submissions.models import Contest, ReferenceResult


@transaction.atomic
def reference_results_create(*, contest: Contest) -> list[ReferenceResult]:
    """Store the seeds' published results of the contest's workload as its reference rows.
    Running it again updates them in place."""
    stored = []
    for published in contest.track.references:
        fields = {
            name: getattr(published, name)
            for name in (
                "storage_engine", "hardware", "drive_kind", "rows", "elapsed_seconds",
                "estimated", "terminal_rate", "average_rate", "size_gib", "source", "note",
            )
        }  # fmt: skip
        fields.update(_reference_track_fields(contest, published.track_figures))
        reference, _ = ReferenceResult.objects.update_or_create(
            contest=contest, label=published.label, defaults=fields
        )
        stored.append(reference)
    return stored


def _reference_track_fields(contest: Contest, figures: dict) -> dict:
    """A published result's track figures under this contest's rules, with its metric and
    class: what places it among the ranked entries."""
    track = contest.track
    if not figures:
        return {"track_figures": dict(figures), "track_metric": None, "track_class": ""}
    refigured = track.figures_under(figures, contest_rule_set(contest))
    return {
        "track_figures": refigured,
        "track_metric": track.ranking.metric_of(refigured),
        "track_class": track.ranking.class_of(refigured),
    }


def reference_results_refigure(*, contest: Contest) -> None:
    """Place the contest's reference rows again under its current rules (a new table size
    for query times moves the published times compared)."""
    for reference in contest.references.all():
        fields = _reference_track_fields(contest, reference.track_figures)
        for name, value in fields.items():
            setattr(reference, name, value)
        reference.save(update_fields=list(fields))
