"""Judging an entry: its declaration and log against a version of its contest's rules, and
what a check writes onto the entry."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import IO

from django.utils import timezone

from submissions import tracks
from submissions.contests.rule_changes import rule_set_of
from submissions.contests.rule_versions import rule_version_current
from submissions.contests.rules import (
    DeclaredSetup,
    Entry,
    RuleVerdict,
    check_entry,
    failures_summary,
    is_eligible,
    verdicts_from_dicts,
)
from submissions.entries.declaration import DECLARED_FIELDS
from submissions.entries.logs import parsed_log
from submissions.entries.refusals import SubmissionRefused
from submissions.logparse import ParsedLog
from submissions.measures.costs import PER_ROW_COSTS, CostFigures, cost_figures
from submissions.measures.figures import Figures, log_figures
from submissions.measures.series import series_columns
from submissions.models import Contest, RuleVersion, Submission
from submissions.setup.engines import normalised_engine
from submissions.wings import entry_stream


@dataclass(frozen=True)
class CheckedEntry:
    """An entry judged: its log as parsed (None without one), the run's figures (None when
    the log has no report lines), the track's figures and the verdicts."""

    parsed: ParsedLog | None
    figures: Figures | None
    track_declared: dict
    track_figures: dict
    track_metric: float | None
    track_class: str
    verdicts: list[RuleVerdict]
    rules_version: RuleVersion | None = None


def declared_setup(declared: dict) -> DeclaredSetup:
    return DeclaredSetup(
        sockets=declared["sockets"],
        cores=declared["cores"],
        memory_gb=declared["memory_gb"],
        drives=declared["drives"],
        raid_level=declared.get("raid_level", ""),
        direct_attached=declared["direct_attached"],
        os=declared["os"],
        server_family=declared.get("server_family") or "mysql",
        server_version=declared["server_version"],
        storage_engine=declared["storage_engine"],
        drive_kind=declared.get("drive_kind") or "",
    )


def track_declared(track: tracks.Track, declared: dict) -> dict:
    try:
        return tracks.clean_declared(track, declared)
    except tracks.TrackInputError as error:
        raise SubmissionRefused(error.message, error.field) from None


def entry_check(
    *,
    contest: Contest,
    declared: dict,
    log_file: IO[bytes] | None,
    submitted_at: datetime,
    version: RuleVersion | None = None,
    extra_verdicts: Sequence[RuleVerdict] = (),
    log_seconds: float | None = None,
    command: str = "",
) -> CheckedEntry:
    """Parse the log (if any), compute the run's and the track's figures and judge the entry
    against a version of the contest's rules (the current one by default). `declared` holds
    the run's fields and the track's; `extra_verdicts` are judged elsewhere (a streamed
    run's seal rules) and count the same; `log_seconds`: the log's read has that deadline;
    `command` is the command line a streamed run's witness ran (evidence the log lacks, such as
    the Python iibench's index flags)."""
    version = version or rule_version_current(contest)
    rules = rule_set_of(version.rules)
    track = tracks.track_for(version.rules["workload"])
    if log_file is None and track.log_required:
        raise SubmissionRefused(
            f"Attach the benchmark's output: {track.label} reads its figures from it.", "log"
        )
    own = track_declared(track, declared)
    parsed = parsed_log(track, log_file, max_seconds=log_seconds) if log_file is not None else None
    figures = log_figures(parsed, rules)
    track_figures = track.figures(parsed, {**declared, **own}, rules)
    entry = Entry(
        log=parsed,
        figures=figures,
        setup=declared_setup(declared),
        submitted_at=submitted_at,
        declared=own,
        track_figures=track_figures,
        command=command,
    )
    ranking = track.ranking
    return CheckedEntry(
        parsed=parsed,
        figures=figures,
        track_declared=own,
        track_figures=track_figures,
        track_metric=ranking.metric_of(track_figures),
        track_class=ranking.class_of(track_figures),
        verdicts=[*check_entry(entry, rules, track.rule_list()), *extra_verdicts],
        rules_version=version,
    )


def entry_declared(submission: Submission) -> dict:
    """What the entrant declared, the run's and the track's fields, as the services take it."""
    declared = {name: getattr(submission, name) for name in DECLARED_FIELDS}
    return {**declared, **submission.track_declared}


def entry_check_stored(
    *, submission: Submission, version: RuleVersion | None = None
) -> CheckedEntry:
    """Judge an entry as it is stored (its log and declaration), without saving anything."""
    declared = entry_declared(submission)
    # A streamed entry keeps its seal verdicts: they come from the stream, not the log.
    stream = entry_stream(submission)
    witness = verdicts_from_dicts(stream.seal_verdicts) if stream is not None else []
    # An entry of declared figures has no log: the check gets None.
    stored_log = submission.log.open("rb") if submission.log else contextlib.nullcontext()
    with stored_log as log_file:
        return entry_check(
            contest=submission.contest,
            declared=declared,
            log_file=log_file,
            submitted_at=submission.submitted_at,
            version=version,
            extra_verdicts=witness,
            command=stream.command if stream is not None else "",
        )


def apply_check(submission: Submission, checked: CheckedEntry) -> None:
    parsed, figures, verdicts = checked.parsed, checked.figures, checked.verdicts
    submission.log_format = parsed.format if parsed else ""
    submission.log_format_label = parsed.format_label if parsed else ""
    submission.parameters = (
        {name: stated.value for name, stated in parsed.parameters.items()} if parsed else {}
    )
    submission.rows = figures.rows if figures else 0
    submission.elapsed_seconds = figures.elapsed_seconds if figures else 0.0
    submission.average_rate = figures.average_rate if figures else 0.0
    submission.terminal_rate = figures.terminal_rate if figures else None
    submission.terminal_window_rows = figures.terminal_window_rows if figures else 0
    submission.terminal_window_start_row = figures.terminal_window_start_row if figures else 0
    submission.seconds_to_target = figures.estimated_seconds_to_target if figures else None
    submission.estimated = figures.estimated if figures else False
    submission.elapsed_source = _short(figures.elapsed_source, 120) if figures else ""
    submission.terminal_window_basis = _short(figures.terminal_window_basis, 200) if figures else ""
    submission.estimate_basis = figures.estimate_basis if figures else ""
    submission.excerpt = parsed is not None and any(m.kind == "excerpt" for m in parsed.markers)
    submission.track_declared = checked.track_declared
    submission.track_figures = checked.track_figures
    submission.track_metric = checked.track_metric
    submission.track_class = checked.track_class
    submission.verdicts = [verdict.as_dict() for verdict in verdicts]
    submission.eligible = is_eligible(verdicts)
    submission.ineligible_reason = _short(failures_summary(verdicts), 500)
    submission.checked_at = timezone.now()
    submission.rules_version = checked.rules_version
    submission.engine = normalised_engine(submission.storage_engine, submission.server_family)
    _apply_costs(submission, checked)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _apply_costs(submission: Submission, checked: CheckedEntry) -> None:
    costs = CostFigures.absent()
    if checked.parsed is not None and checked.figures is not None:
        costs = cost_figures(
            series_columns(checked.parsed.series),
            window_start_row=checked.figures.terminal_window_start_row,
        )
    submission.db_size_bytes = costs.db_size_bytes
    for cost in PER_ROW_COSTS:
        setattr(submission, cost.figure, getattr(costs, cost.figure))
