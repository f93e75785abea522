"""Reads of the live side, with who may see a live run in one place."""

from __future__ import annotations

from array import array

from submissions.figures import compute_figures, default_window_rows
from submissions.live.models import LiveBatch, LiveRun, LiveSample
from submissions.live.trust import trust_level
from submissions.logparse.model import Series
from submissions.models import Submission
from submissions.selectors import is_organizer

SAMPLES_PER_ANSWER = 2000


def live_run_visible(run: LiveRun, user) -> bool:
    """As for an entry: the organizers, the entrant, and everyone once results are public."""
    return (
        is_organizer(user)
        or run.contest.results_are_public()
        or (user.is_authenticated and run.owner_id == user.id)
    )


def contest_live_runs(contest, user) -> list[LiveRun]:
    """The contest's runs still streaming (or gone silent), newest first, as its page lists
    them above the board."""
    runs = LiveRun.objects.filter(contest=contest, sealed_at__isnull=True).select_related("contest")
    return [run for run in runs.order_by("-opened_at")[:50] if live_run_visible(run, user)]


def entry_trust(submission: Submission) -> str:
    run = getattr(submission, "live_run", None)
    return trust_level(verified=submission.verified, witnessed=run.witnessed if run else None)


def entry_live_state(submission: Submission) -> str | None:
    run = getattr(submission, "live_run", None)
    return run.state() if run is not None else None


def live_samples(run: LiveRun, after: int = 0) -> list[dict]:
    samples = LiveSample.objects.filter(run=run, id__gt=after).order_by("id")
    return list(
        samples.values("id", "rows", "seconds", "interval_rate", "cumulative_rate")[
            :SAMPLES_PER_ANSWER
        ]
    )


def _samples_around(run: LiveRun, rows: int) -> list[tuple[int, float]]:
    """The last sample at or before `rows` and the first after it (an indexed look-up each)."""
    samples = LiveSample.objects.filter(run=run).values_list("rows", "seconds")
    before = samples.filter(rows__lte=rows).order_by("-rows").first()
    after = samples.filter(rows__gt=rows).order_by("rows").first()
    return [point for point in (before, after) if point is not None]


def live_figures(run: LiveRun) -> dict:
    """Terminal rate and time to the contest's target from the samples so far. The figures
    read only the samples around the terminal window's start and around the target, so a
    handful of them stands in for a run of 170,000 reports."""
    nothing = {"terminal_rate": None, "eta_seconds": None, "seconds_to_target": None}
    if not run.rows:
        return nothing
    contest = run.contest
    window = contest.terminal_window_rows
    start = run.rows - max(default_window_rows(run.rows) if window is None else window, 1)
    points = {(run.rows, run.elapsed_seconds)}
    points.update(_samples_around(run, start))
    if run.rows >= contest.target_rows:
        points.update(_samples_around(run, contest.target_rows - 1))
    ordered = sorted(point for point in points if point[0] <= run.rows)
    series = Series(
        rows=array("q", (rows for rows, _ in ordered)),
        seconds=array("d", (seconds for _, seconds in ordered)),
    )
    figures = compute_figures(series, target_rows=contest.target_rows, window_rows=window)
    to_target = figures.estimated_seconds_to_target
    eta = max(to_target - figures.elapsed_seconds, 0.0) if to_target is not None else None
    return {
        "terminal_rate": figures.terminal_rate,
        "eta_seconds": eta,
        "seconds_to_target": to_target,
    }


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
