"""Reads of the live side, with who may see a live run in one place."""

from __future__ import annotations

import contextlib
from array import array

import numpy as np
from django.core.cache import cache
from django.utils import timezone
from redis.exceptions import RedisError

from submissions.caches.compiled import compiled_instances, instances_of
from submissions.entries.selectors import is_organizer
from submissions.entries.tokens import TokenListing
from submissions.live.models import LiveBatch, LiveRun, LiveSample, WitnessToken
from submissions.logparse.model import Series
from submissions.measures.costs import cost_figures
from submissions.measures.figures import compute_figures
from submissions.models import Submission
from submissions.wings import StreamedRun

SAMPLES_PER_ANSWER = 2000


def live_run_visible(run: LiveRun, user) -> bool:
    """As for an entry: the organizers, the entrant, and everyone once results are public."""
    return (
        is_organizer(user)
        or run.contest.results_are_public()
        or (user.is_authenticated and run.owner_id == user.id)
    )


def live_runs_key(contest_id: int) -> tuple:
    return ("live-runs", contest_id)


def contest_live_runs(contest, user) -> list[LiveRun]:
    """The contest's runs still streaming (or gone silent), newest first, as its page lists
    them above the board."""
    # Compiled once per process (every contest page built reads it); the runs are this
    # contest's, so it is set on them rather than joined.
    compiled = compiled_instances(
        live_runs_key(contest.pk),
        lambda: LiveRun.objects.filter(contest=contest, sealed_at__isnull=True).order_by(
            "-opened_at"
        )[:50],
    )
    runs = instances_of(compiled)
    for run in runs:
        run.contest = contest
    return [run for run in runs if live_run_visible(run, user)]


def entry_stream(submission: Submission) -> StreamedRun | None:
    """What the registry reads of an entry's stream (registered in live/apps.py)."""
    run = getattr(submission, "live_run", None)
    if run is None:
        return None
    return StreamedRun(
        streamed=run.witnessed,
        state=run.state(),
        seal_verdicts=run.seal_verdicts,
        command=run.command,
    )


def contest_panel(contest, user) -> dict:
    return {"live_runs": contest_live_runs(contest, user)}


def contest_panel_reads(contest_id: int) -> list:
    """What the panel reads, to be read ahead with the rest of the contest page."""
    return [live_runs_key(contest_id)]


def witness_tokens_of(user) -> list[TokenListing]:
    """The user's witness tokens not revoked: each streams into one contest. Only their hash is
    kept, so the listing shows the prefix every witness token shares."""
    from submissions.live.services import TOKEN_PREFIX

    now = timezone.now()
    witness = WitnessToken.objects.filter(user=user, revoked_at__isnull=True)
    return [
        TokenListing(
            kind="witness",
            id=str(token.pk),
            prefix=TOKEN_PREFIX,
            created=token.created_at,
            expires_at=token.expires_at,
            expired=not token.usable(now),
            scope=f"streaming runs into {token.contest.title}",
        )
        for token in witness.select_related("contest").order_by("-created_at")
    ]


def live_samples(run: LiveRun, after: int = 0) -> list[dict]:
    samples = LiveSample.objects.filter(run=run, id__gt=after).order_by("id")
    return list(
        samples.values("id", "rows", "seconds", "interval_rate", "cumulative_rate", "cost")[
            :SAMPLES_PER_ANSWER
        ]
    )


def live_figures(run: LiveRun) -> dict:
    """Terminal rate and time to the contest's target from the samples so far, computed as
    for a sealed entry. Cached per batch received: every viewer's poll reads it once."""
    key = f"live-figures:{run.pk}:{run.next_seq}"
    try:
        cached = cache.get(key)
    except (RedisError, OSError):
        cached = None  # the cache is down: compute it, as a cache miss would
    if cached is not None:
        return cached
    figures = _live_figures(run)
    with contextlib.suppress(RedisError, OSError):
        cache.set(key, figures, timeout=3600)
    return figures


def _live_figures(run: LiveRun) -> dict:
    nothing = {"terminal_rate": None, "eta_seconds": None, "seconds_to_target": None, "cost": None}
    points = list(
        LiveSample.objects.filter(run=run).order_by("line").values_list("rows", "seconds", "cost")
    )
    if not points:
        return nothing
    series = Series(
        rows=array("q", (rows for rows, _, _ in points)),
        seconds=array("d", (seconds for _, seconds, _ in points)),
        line=array("q", range(1, len(points) + 1)),
    )
    contest = run.contest
    try:
        figures = compute_figures(
            series, target_rows=contest.target_rows, window_rows=contest.terminal_window_rows
        )
    except (ValueError, IndexError):  # rows that went down in a log the seal will refuse
        return nothing
    to_target = figures.estimated_seconds_to_target
    eta = max(to_target - figures.elapsed_seconds, 0.0) if to_target is not None else None
    return {
        "terminal_rate": figures.terminal_rate,
        "eta_seconds": eta,
        "seconds_to_target": to_target,
        "cost": _live_cost(points, figures.terminal_window_start_row),
    }


def _live_cost(points: list[tuple], window_start_row: int) -> dict | None:
    """The cost figures of the samples so far, computed as for a sealed entry (costs.py);
    None when no sample carries a cost. An unmeasured value is NaN again, never zero."""
    names = {name for _, _, cost in points for name in cost}
    if not names:
        return None
    columns = {"rows": np.array([rows for rows, _, _ in points], dtype=np.int64)}
    for name in names:
        columns[name] = np.array([cost.get(name, np.nan) for _, _, cost in points])
    return cost_figures(columns, window_start_row=window_start_row).as_dict()


def last_interval(run: LiveRun) -> dict:
    """The machine's counters over the client's last interval (CPU, the datadir's drive)."""
    machine = (
        LiveBatch.objects.filter(run=run)
        .exclude(machine={})
        .order_by("-seq")
        .values_list("machine", flat=True)
        .first()
    )
    return machine or {}
