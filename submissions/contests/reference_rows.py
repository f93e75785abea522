"""A contest's reference rows: the seeds' published results of its workload, placed among the
entries; and the seeds' comparisons reproduced on a verification host (`reproduce_seeds`), kept
beside them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from submissions.contests.rule_versions import contest_rule_set
from submissions.models import Contest, ReferenceResult, SeedReproduction
from submissions.tracks.reproduced import (
    BY_KEY,
    COMPARISONS,
    ENGINE_NAMES,
    Comparison,
    EngineRun,
    Measured,
    memory_limit_text,
    published_ratio_value,
    ratio_of,
)


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


# --- the seeds' table, reproduced (tracks/reproduced.py; runs by `manage.py reproduce_seeds`) --


def reproduced_label(comparison: Comparison, engine: str, host: str, scale: int) -> str:
    return (
        f"{ENGINE_NAMES.get(engine, engine)} reproduced on {host} at 1/{scale:,} "
        f"({comparison.key} comparison)"
    )[:200]


@transaction.atomic
def reproduction_store(
    *,
    run: EngineRun,
    measured: Measured | None,
    host: str,
    drive_kind: str = "",
    load: str = "",
    message: str = "",
    memory_limit: int | None = None,
    no_cgroup: str = "",
) -> SeedReproduction:
    """One engine's run of a seeds' comparison, kept (replacing the same host's and scale's),
    and, when it measured something, a reference row "reproduced on <host> at 1/k" in every
    contest of the comparison's workload, beside the published ones. `memory_limit`: the
    server's cgroup limit read back (bytes), None when it had none (`no_cgroup` says why)."""
    comparison = BY_KEY[run.comparison]
    memory = memory_limit_text(run, memory_limit, no_cgroup)
    floor_note = (
        f"{run.cache_key} held at its floor {run.cache_bytes // 1024:,} kB (1/{run.scale:,} "
        "of the seed's memory is below it): more memory per row than the seed had. "
        if run.cache_at_floor
        else ""
    )
    figures = {}
    if measured is not None:
        figures = {
            "rows": measured.rows,
            "seconds": measured.seconds,
            "terminal_rate": measured.terminal_rate,
            "average_rate": measured.average_rate,
            "query_seconds": measured.query_seconds,
            "curve": [list(point) for point in measured.curve],
        }
    reproduction, _ = SeedReproduction.objects.update_or_create(
        comparison=run.comparison,
        engine=run.engine,
        host=host,
        scale=run.scale,
        defaults={
            "status": "completed" if measured is not None else "failed",
            "message": (floor_note + message).strip(),
            "cache": f"{run.cache_key}={run.cache_bytes // 1024}K",
            "cache_at_floor": run.cache_at_floor,
            "memory_limit": memory,
            "memory_limit_bytes": memory_limit if run.page_cache is not None else None,
            "load": load[:200],
            "measured_at": timezone.now(),
            **{"rows": 0, "seconds": None, "terminal_rate": None, "average_rate": None},
            **{"query_seconds": None, "curve": []},
            **figures,
        },
    )
    if measured is None:
        return reproduction
    for contest in Contest.objects.filter(workload=comparison.workload):
        ReferenceResult.objects.update_or_create(
            contest=contest,
            label=reproduced_label(comparison, run.engine, host, run.scale),
            defaults={
                "storage_engine": ENGINE_NAMES.get(run.engine, run.engine),
                "hardware": host,
                "drive_kind": drive_kind,
                "rows": measured.rows,
                "elapsed_seconds": measured.seconds,
                "estimated": False,
                "terminal_rate": measured.terminal_rate,
                "average_rate": measured.average_rate,
                "size_gib": None,
                "source": f"reproduce_seeds on {host}, {timezone.now():%d %b %Y}"[:300],
                "note": (
                    f"{comparison.title}, reproduced at 1/{run.scale:,}: {measured.rows:,} rows "
                    f"with {run.cache_key}={run.cache_bytes // 1024:,} kB; {memory}. {floor_note}"
                    f"Published ({comparison.source}): "
                    + ", ".join(f"{k} {v:,g}" for k, v in comparison.published.items())
                    + f" ({comparison.published_ratio})."
                ),
                "track_figures": {},
                "track_metric": None,
                "track_class": "",
            },
        )
    return reproduction


@dataclass(frozen=True)
class MeasuredColumn:
    """One host's and scale's runs of a comparison, with the ratio they give."""

    host: str
    scale: int
    runs: list[SeedReproduction]
    ratio: float | None
    figures: dict[str, float | None]


@dataclass(frozen=True)
class SeedsRow:
    comparison: Comparison
    published_ratio: float
    measured: list[MeasuredColumn]


def seeds_table() -> list[SeedsRow]:
    """Every comparison with its published ratio and the ratios measured here, per host and
    scale, newest first; a comparison nobody reproduced yet has none."""
    kept: dict[tuple[str, str, int], list[SeedReproduction]] = {}
    for reproduction in SeedReproduction.objects.order_by("-measured_at"):
        key = (reproduction.comparison, reproduction.host, reproduction.scale)
        kept.setdefault(key, []).append(reproduction)
    rows = []
    for comparison in COMPARISONS:
        columns = []
        for (key, host, scale), runs in kept.items():
            if key != comparison.key:
                continue
            figures = {
                run.engine: getattr(run, comparison.metric)
                for run in runs
                if run.status == "completed"
            }
            order = {engine: n for n, engine in enumerate(comparison.engines)}
            runs = sorted(runs, key=lambda run: order.get(run.engine, len(order)))
            columns.append(
                MeasuredColumn(host, scale, runs, ratio_of(comparison, figures), figures)
            )
        rows.append(SeedsRow(comparison, published_ratio_value(comparison), columns))
    return rows
