"""Writes of the registry. Views, the API, admin actions and tasks parse input and call these."""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import IO
from zoneinfo import ZoneInfo

import psycopg
from django.conf import settings
from django.core.files import File
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from psycopg import sql

from submissions import tracks
from submissions.costs import CostFigures, cost_figures
from submissions.declared_settings import declared_settings_store
from submissions.engines import normalised_engine
from submissions.entry_settings import header_settings_store
from submissions.figures import Figures, compute_figures
from submissions.live.verdicts import submission_witness_verdicts
from submissions.logparse import LogError, ParsedLog, key_type_log, parse_log, parse_log_runs
from submissions.models import Contest, ReferenceResult, RuleVersion, SampleSeries, Submission
from submissions.plausibility import implausible
from submissions.ranking import MetricStanding, Standing, class_ranks, competition_ranks
from submissions.rule_changes import rule_set_of
from submissions.rule_versions import rule_version_current
from submissions.rules import (
    DeclaredSetup,
    Entry,
    RuleSet,
    Status,
    Verdict,
    check_entry,
    first_failure,
    is_eligible,
)
from submissions.series import pack_columns, plot_preview, series_columns, series_fingerprint

logger = logging.getLogger(__name__)

# What an entrant fills in; everything else on a Submission is computed.
DECLARED_FIELDS = (
    "entrant_name",
    "email",
    "publish",
    "cpu_model",
    "sockets",
    "cores",
    "cpu_ghz",
    "memory_gb",
    "drives",
    "drive_kind",
    "raid_level",
    "direct_attached",
    "os",
    "server_family",
    "server_version",
    "storage_engine",
    "storage_engine_version",
    "solution_description",
    "server_config",
)


class SubmissionRefused(Exception):
    """A submission the registry will not store; `field` names the form field to blame."""

    def __init__(self, message: str, field: str = "log"):
        super().__init__(message)
        self.field = field
        self.message = message


class DuplicateLog(SubmissionRefused):
    def __init__(self, existing: Submission):
        super().__init__(
            f"This run was already submitted to this contest as entry #{existing.pk}.", "log"
        )
        self.existing = existing


class ContestClosed(SubmissionRefused):
    def __init__(self, contest: Contest):
        due = timezone.localtime(contest.deadline, ZoneInfo(contest.timezone)).strftime(
            "%d %b %Y %H:%M %Z"
        )
        super().__init__(f"{contest.title} closed on {due}; it takes no more entries.", "contest")


@dataclass(frozen=True)
class CheckedEntry:
    """An entry judged: its log as parsed (None without one), the classic figures (None when
    the log has no report lines), the track's figures and the verdicts."""

    parsed: ParsedLog | None
    figures: Figures | None
    track_declared: dict
    track_figures: dict
    track_metric: float | None
    track_class: str
    verdicts: list[Verdict]
    rules_version: RuleVersion | None = None


def contest_rule_set(contest: Contest) -> RuleSet:
    return RuleSet(
        target_rows=contest.target_rows,
        rows_per_commit=contest.rows_per_commit,
        max_rows_per_insert=contest.max_rows_per_insert,
        report_every_rows=contest.report_every_rows,
        indexes_from_start=contest.indexes_from_start,
        max_sockets=contest.max_sockets,
        max_cores=contest.max_cores,
        max_memory_gb=contest.max_memory_gb,
        max_drives=contest.max_drives,
        require_direct_attached=contest.require_direct_attached,
        raid_allowed=contest.raid_allowed,
        required_mysql_version=contest.required_mysql_version,
        preferred_os=contest.preferred_os,
        deadline=contest.deadline,
        timezone=contest.timezone,
        terminal_window_rows=contest.terminal_window_rows,
        track=tracks.track_rules(contest.track, contest.track_rules),
    )


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
    )


# What each kind of track log must hold, and what to tell an entrant whose log lacks it.
LOG_NEEDS = {
    tracks.LOG_SERIES: (
        lambda parsed: len(parsed.series) > 0,
        "report lines of an insert run",
    ),
    tracks.LOG_LOAD: (
        lambda parsed: parsed.load is not None,
        "the summary of `iibench load` (# summary ... mode=load)",
    ),
    tracks.LOG_KEY_TYPES: (
        lambda parsed: bool(parsed.key_type_runs),
        "key-type runs: the metrics console's output (Starting BASELINE...) or the C "
        "benchmark's runs with --pk autoinc, uuid-char and uuid-ordered, one after another",
    ),
}


def _parsed_log(track: tracks.Track, log_file: IO[bytes]) -> ParsedLog:
    log_file.seek(0)
    cap = settings.LOG_EXPANDED_MAX_BYTES
    try:
        if track.log == tracks.LOG_KEY_TYPES:
            parsed = key_type_log(parse_log_runs(log_file, max_expanded_bytes=cap))
        else:
            parsed = parse_log(
                log_file, max_expanded_bytes=cap, max_reports=settings.LOG_MAX_REPORTS
            )
    except LogError as error:
        raise SubmissionRefused(str(error), "log") from error
    holds, what = LOG_NEEDS.get(track.log, (lambda parsed: True, ""))
    if not holds(parsed):
        raise SubmissionRefused(
            f"{track.label} reads {what}; this log ({parsed.format_label}) has none.", "log"
        )
    impossible = implausible(parsed.series)
    if impossible:
        raise SubmissionRefused(impossible, "log")
    return parsed


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
    extra_verdicts: Sequence[Verdict] = (),
) -> CheckedEntry:
    """Parse the log (if any), compute the classic and the track's figures and judge the entry
    against a version of the contest's rules (the current one by default). `declared` holds
    the classic fields and the track's; `extra_verdicts` are judged elsewhere (a witnessed
    run's seal rules) and count the same."""
    version = version or rule_version_current(contest)
    rules = rule_set_of(version.rules)
    track = tracks.track_for(version.rules["workload"])
    if log_file is None and track.log_required:
        raise SubmissionRefused(
            f"Attach the benchmark's output: {track.label} reads its figures from it.", "log"
        )
    own = track_declared(track, declared)
    parsed = _parsed_log(track, log_file) if log_file is not None else None
    figures = None
    if parsed is not None and len(parsed.series):
        figures = compute_figures(
            parsed.series,
            target_rows=rules.target_rows,
            window_rows=rules.terminal_window_rows,
            log=parsed,
        )
    track_figures = track.figures(parsed, {**declared, **own}, rules)
    entry = Entry(
        log=parsed,
        figures=figures,
        setup=declared_setup(declared),
        submitted_at=submitted_at,
        declared=own,
        track_figures=track_figures,
    )
    ranking = track.ranking
    return CheckedEntry(
        parsed=parsed,
        figures=figures,
        track_declared=own,
        track_figures=track_figures,
        track_metric=ranking.metric_of(track_figures) if ranking else None,
        track_class=ranking.class_of(track_figures) if ranking else "",
        verdicts=[*check_entry(entry, rules, track.rule_list()), *extra_verdicts],
        rules_version=version,
    )


def file_sha256(fileobj: IO[bytes]) -> str:
    digest = hashlib.sha256()
    fileobj.seek(0)
    for chunk in iter(lambda: fileobj.read(1 << 20), b""):
        digest.update(chunk)
    fileobj.seek(0)
    return digest.hexdigest()


def display_name(name: str) -> str:
    """The client's file name, for display only: no directories, no control characters."""
    base = PurePath(name.replace("\\", "/")).name
    cleaned = "".join(ch for ch in base if ch.isprintable()).strip()
    return cleaned[:200] or "log"


def _apply_check(submission: Submission, checked: CheckedEntry) -> None:
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
    submission.elapsed_source = figures.elapsed_source if figures else ""
    submission.terminal_window_basis = figures.terminal_window_basis if figures else ""
    submission.estimate_basis = figures.estimate_basis if figures else ""
    submission.excerpt = parsed is not None and any(m.kind == "excerpt" for m in parsed.markers)
    submission.track_declared = checked.track_declared
    submission.track_figures = checked.track_figures
    submission.track_metric = checked.track_metric
    submission.track_class = checked.track_class
    submission.verdicts = [verdict.as_dict() for verdict in verdicts]
    submission.eligible = is_eligible(verdicts)
    failure = first_failure(verdicts)
    submission.ineligible_reason = failure.message[:500] if failure else ""
    submission.checked_at = timezone.now()
    submission.rules_version = checked.rules_version
    submission.engine = normalised_engine(submission.storage_engine, submission.server_family)
    _apply_costs(submission, checked)


def _apply_costs(submission: Submission, checked: CheckedEntry) -> None:
    costs = CostFigures.absent()
    if checked.parsed is not None and checked.figures is not None:
        costs = cost_figures(
            series_columns(checked.parsed.series),
            window_start_row=checked.figures.terminal_window_start_row,
        )
    submission.db_size_bytes = costs.db_size_bytes
    submission.write_kb_per_row = costs.write_kb_per_row
    submission.reads_per_row = costs.reads_per_row
    submission.server_cpu_us_per_row = costs.server_cpu_us_per_row
    submission.client_cpu_us_per_row = costs.client_cpu_us_per_row
    submission.machine_cpu_us_per_row = costs.machine_cpu_us_per_row


def _store_series(submission: Submission, parsed: ParsedLog | None) -> None:
    if parsed is None or not len(parsed.series):
        # A load summary, key-type runs or declared figures: no curve to keep.
        SampleSeries.objects.filter(submission=submission).delete()
        return
    columns = series_columns(parsed.series)
    packed = pack_columns(columns)
    SampleSeries.objects.update_or_create(
        submission=submission,
        defaults={"count": len(parsed.series), "columns": b"", "preview": plot_preview(columns)},
    )
    _write_packed(submission.pk, packed)


def _write_packed(submission_id: int, packed: bytes) -> None:
    """The packed series sent as a binary parameter: Django's client-side binding would send it
    as an escaped text literal, twice its size, built in the serving process's memory."""
    if connection.vendor != "postgresql":
        SampleSeries.objects.filter(submission_id=submission_id).update(columns=packed)
        return
    connection.ensure_connection()
    meta = SampleSeries._meta
    statement = sql.SQL("UPDATE {} SET {} = %b WHERE {} = %s").format(
        sql.Identifier(meta.db_table),
        sql.Identifier(meta.get_field("columns").column),
        sql.Identifier(meta.pk.column),
    )
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(statement, [packed, submission_id])


def submission_create(
    *,
    contest: Contest,
    owner,
    declared: dict,
    log_file: File | None,
    submitted_at: datetime | None = None,
    enforce_deadline: bool = True,
    demo: str = "",
    extra_verdicts: Sequence[Verdict] = (),
) -> Submission:
    """Store a new entry with its log, figures and verdicts, or nothing at all. `declared`
    holds the classic fields and the contest's track fields; the log may be None only for a
    track of declared figures (crash recovery)."""
    submitted_at = submitted_at or timezone.now()
    if enforce_deadline and not contest.is_open(submitted_at):
        raise ContestClosed(contest)
    sha256 = ""
    if log_file is not None:
        sha256 = file_sha256(log_file)
        existing = Submission.objects.filter(contest=contest, log_sha256=sha256).first()
        if existing:
            raise DuplicateLog(existing)
    checked = entry_check(
        contest=contest,
        declared=declared,
        log_file=log_file,
        submitted_at=submitted_at,
        extra_verdicts=extra_verdicts,
    )
    fingerprint = _run_fingerprint(checked.parsed)
    if fingerprint:
        existing = Submission.objects.filter(contest=contest, run_fingerprint=fingerprint).first()
        if existing:
            raise DuplicateLog(existing)
    submission = Submission(
        contest=contest,
        owner=owner,
        submitted_at=submitted_at,
        log_name=display_name(log_file.name or "log") if log_file is not None else "",
        log_sha256=sha256,
        run_fingerprint=fingerprint,
        log_size=log_file.size if log_file is not None else 0,
        demo=demo,
        **{name: declared[name] for name in DECLARED_FIELDS if name in declared},
    )
    _apply_check(submission, checked)
    submission._history_user = owner
    try:
        with transaction.atomic():
            if log_file is not None:
                log_file.seek(0)
                submission.log.save(submission.log_name, log_file, save=False)
            submission.save()
            _store_series(submission, checked.parsed)
            declared_settings_store(submission=submission)
            header_settings_store(submission=submission, parsed=checked.parsed)
            contest_rank(contest=contest)
    except IntegrityError:
        _discard_file(submission)
        # Two uploads of the same run raced past the checks above; a constraint decided.
        same = Q(log_sha256=sha256) if sha256 else Q(pk__in=[])
        if fingerprint:
            same |= Q(run_fingerprint=fingerprint)
        raise DuplicateLog(Submission.objects.filter(same, contest=contest).first()) from None
    except BaseException:
        _discard_file(submission)
        raise
    return submission


def _run_fingerprint(parsed: ParsedLog | None) -> str:
    if parsed is None or not len(parsed.series):
        return ""
    return series_fingerprint(series_columns(parsed.series))


def _discard_file(submission: Submission) -> None:
    if submission.log.name:
        submission.log.storage.delete(submission.log.name)


def submission_update(
    *,
    submission: Submission,
    declared: dict,
    by=None,
    reason: str = "",
    enforce_deadline: bool = True,
) -> Submission:
    """Change what the entrant declared (classic and track fields), keep the change in the
    entry's history (who: `by`) and judge the entry again with the new declaration. The
    approval of edits to published entries is decided before, by submissions.edits."""
    if enforce_deadline and not submission.contest.is_open():
        raise ContestClosed(submission.contest)
    before = submission_declared(submission)
    for name in DECLARED_FIELDS:
        if name in declared:
            setattr(submission, name, declared[name])
    fields = {field.name for field in submission.contest.track.fields}
    submission.track_declared = {
        **submission.track_declared,
        **{name: value for name, value in declared.items() if name in fields},
    }
    with transaction.atomic():
        if submission_declared(submission) != before:
            submission.edited_at = timezone.now()
            submission._history_user = by
            submission._change_reason = reason or None
            submission.save()
        checked = submission_check(submission=submission)
        declared_settings_store(submission=checked)
        return checked


def submission_declared(submission: Submission) -> dict:
    """What the entrant declared, classic and track fields, as the services take it."""
    declared = {name: getattr(submission, name) for name in DECLARED_FIELDS}
    return {**declared, **submission.track_declared}


def entry_check_stored(
    *, submission: Submission, version: RuleVersion | None = None
) -> CheckedEntry:
    """Judge an entry as it is stored (its log and declaration), without saving anything."""
    declared = submission_declared(submission)
    # A witnessed entry keeps its seal verdicts: they come from the stream, not the log.
    witness = submission_witness_verdicts(submission)
    if not submission.log:
        return entry_check(
            contest=submission.contest,
            declared=declared,
            log_file=None,
            submitted_at=submission.submitted_at,
            version=version,
            extra_verdicts=witness,
        )
    with submission.log.open("rb") as log_file:
        return entry_check(
            contest=submission.contest,
            declared=declared,
            log_file=log_file,
            submitted_at=submission.submitted_at,
            version=version,
            extra_verdicts=witness,
        )


@transaction.atomic
def submission_check(
    *, submission: Submission, rank: bool = True, version: RuleVersion | None = None
) -> Submission:
    """Judge an entry again from its stored log (after its declaration or its rules changed),
    under `version` of the rules (the current one by default). `rank=False` leaves the
    contest's ranks to the caller, who re-checks many entries."""
    checked = entry_check_stored(submission=submission, version=version)
    _apply_check(submission, checked)
    # A re-check is not an edit: the history keeps what the entrant changed, not each verdict.
    submission.skip_history_when_saving = True
    try:
        submission.save()
    finally:
        del submission.skip_history_when_saving
    _store_series(submission, checked.parsed)
    header_settings_store(submission=submission, parsed=checked.parsed)
    if rank:
        contest_rank(contest=submission.contest)
    return submission


@dataclass(frozen=True)
class RecheckOutcome:
    checked: int
    unreadable: int  # entries whose stored log the current parser or track refuses


def submission_recheck(*, submission: Submission, version: RuleVersion) -> bool:
    """Judge one entry of a contest's re-check under `version`, without ranking. Returns False
    when its stored log no longer passes (it is then marked not eligible, with the reason)."""
    try:
        submission_check(submission=submission, rank=False, version=version)
    except SubmissionRefused as refused:
        submission_mark_unreadable(submission=submission, reason=refused.message, version=version)
        return False
    return True


def contest_recheck(*, contest: Contest) -> RecheckOutcome:
    """Judge every entry of a contest again under its current rules, here and now (the
    background re-check is submissions.rechecks). An entry whose stored log no longer passes
    (a stricter parser, a track that reads something else) is marked not eligible with the
    reason; the others are re-checked all the same and ranked once at the end."""
    version = rule_version_current(contest)
    checked = unreadable = 0
    for submission in contest.submissions.select_related("contest").iterator(chunk_size=100):
        if not submission_recheck(submission=submission, version=version):
            unreadable += 1
        checked += 1
    reference_results_refigure(contest=contest)
    contest_rank(contest=contest)
    return RecheckOutcome(checked=checked, unreadable=unreadable)


def submission_mark_unreadable(
    *, submission: Submission, reason: str, version: RuleVersion | None = None
) -> Submission:
    """Keep the entry and its log, but take it out of the ranking, saying why. Its other
    verdicts go: they were made under rules it is no longer judged by."""
    message = f"The stored log no longer passes the checks: {reason}"
    submission.verdicts = [Verdict("log_readable", Status.FAIL, message).as_dict()]
    submission.eligible = False
    submission.ineligible_reason = message[:500]
    submission.checked_at = timezone.now()
    submission.rules_version = version or rule_version_current(submission.contest)
    submission.skip_history_when_saving = True
    try:
        submission.save(
            update_fields=[
                "verdicts", "eligible", "ineligible_reason", "checked_at", "rules_version",
            ]
        )  # fmt: skip
    finally:
        del submission.skip_history_when_saving
    return submission


def contest_track_defaults_apply(*, contest: Contest) -> Contest:
    """Give a contest its track's starting rules: the classic fields the track sets (FIFO: 500M
    rows, a 10M-row terminal window) and the track's own parameters at their defaults."""
    track = contest.track
    for name, value in track.contest_defaults.items():
        setattr(contest, name, value)
    contest.track_rules = track.default_rules()
    contest.save()
    return contest


def submission_delete(*, submission: Submission) -> None:
    if not submission.contest.is_open():
        raise ContestClosed(submission.contest)
    name = submission.log.name
    storage = submission.log.storage
    contest = submission.contest
    with transaction.atomic():
        submission.delete()
        contest_rank(contest=contest)
        transaction.on_commit(lambda: storage.delete(name))


@transaction.atomic
def contest_rank(*, contest: Contest) -> int:
    """Rank the contest's qualifying entries again and store what changed. Returns how many
    ranks changed. Qualifying: eligible, with a (measured or estimated) time to the target."""
    # Two entries saved at once would each rank without seeing the other; locking the contest
    # row makes the second wait for the first to commit, then rank both.
    Contest.objects.select_for_update().filter(pk=contest.pk).values_list("pk").first()
    ranking = contest.track.ranking
    if ranking is None:
        current = list(
            Submission.objects.filter(contest=contest).values_list(
                "pk", "eligible", "seconds_to_target", "terminal_rate", "estimated", "rank"
            )
        )
        ranks = competition_ranks(
            Standing(pk, seconds, terminal_rate, estimated)
            for pk, eligible, seconds, terminal_rate, estimated, _ in current
            if eligible and seconds is not None and math.isfinite(seconds)
        )
    else:
        current = list(
            Submission.objects.filter(contest=contest).values_list(
                "pk", "eligible", "track_metric", "track_class", "rank"
            )
        )
        ranks = class_ranks(
            (
                MetricStanding(pk, metric, track_class)
                for pk, eligible, metric, track_class, _ in current
                if eligible and metric is not None and math.isfinite(metric)
            ),
            descending=ranking.descending,
        )
    changed = [(pk, ranks.get(pk)) for pk, *_, rank in current if ranks.get(pk) != rank]
    if changed:
        _store_ranks(changed)
    contest_board_changed(contest_id=contest.pk)
    return len(changed)


def contest_board_changed(*, contest_id: int) -> None:
    """Move the contest's board version on, inside the caller's transaction: pages cached
    under the old version are never served again."""
    Contest.objects.filter(pk=contest_id).update(board_version=F("board_version") + 1)


def _store_ranks(changed: list[tuple[int, int | None]]) -> None:
    if connection.vendor != "postgresql":  # the embedded SQLite of `make run`: small boards
        entries = [Submission(pk=pk, rank=rank) for pk, rank in changed]
        Submission.objects.bulk_update(entries, ["rank"], batch_size=500)
        return
    # One UPDATE from two arrays: a newcomer at the top moves every rank of a 10,000-entry
    # board in ~0.1 s, where bulk_update's CASE WHEN per row took seconds.
    ids, ranks = zip(*changed, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE submissions_submission AS entry SET rank = changed.rank
            FROM unnest(%s::bigint[], %s::integer[]) AS changed(id, rank)
            WHERE entry.id = changed.id
            """,
            [list(ids), list(ranks)],
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
    if track.ranking is None or not figures:
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
