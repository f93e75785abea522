"""Writes of entries: store, edit, judge again, delete. Views, the API, admin actions and
tasks parse input and call these."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import IO

import psycopg
from django.core.files import File
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from psycopg import sql

from submissions.contests.ranks import contest_board_changed
from submissions.contests.reference_rows import reference_results_refigure
from submissions.contests.rule_versions import rule_version_current
from submissions.contests.rules import RuleVerdict, Status
from submissions.entries.checks import (
    apply_check,
    entry_check,
    entry_check_stored,
    entry_declared,
)
from submissions.entries.declaration import DECLARED_FIELDS
from submissions.entries.outcome import setup_changed
from submissions.entries.refusals import ContestClosed, DuplicateLog, SubmissionRefused
from submissions.logparse import ParsedLog, Series
from submissions.measures.series import (
    pack_columns,
    plot_preview,
    series_columns,
    series_fingerprint,
)
from submissions.models import Contest, RuleVersion, SampleSeries, Submission
from submissions.setup.declared import declared_settings_store
from submissions.setup.entry_settings import header_settings_store
from submissions.setup.server_settings import family_of
from submissions.wings import unreadable_size

logger = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class PackedSeries:
    """A parsed series as it is stored: what the pages plot, and every sample packed."""

    count: int
    preview: dict
    packed: bytes | bytearray


def _series_packed(parsed: ParsedLog | None) -> PackedSeries | None:
    """The series packed, and taken out of `parsed` (whose samples are not read after): each
    column's memory goes back once it is packed, instead of the whole series staying beside
    the packed bytes (160 MB beside 27 MB for 2,000,000 reports)."""
    if parsed is None or not len(parsed.series):
        return None
    count, columns = len(parsed.series), series_columns(parsed.series)
    parsed.series = Series()
    preview = plot_preview(columns)
    return PackedSeries(count, preview, pack_columns(columns, release=True))


def _store_series(submission: Submission, series: PackedSeries | None) -> None:
    if series is None:
        # A load summary, key-type runs or declared figures: no curve to keep.
        SampleSeries.objects.filter(submission=submission).delete()
        return
    SampleSeries.objects.update_or_create(
        submission=submission,
        defaults={"count": series.count, "columns": b"", "preview": series.preview},
    )
    _write_packed(submission.pk, series.packed)


# A binary COPY of one row of one field: the signature, no flags, no header extension.
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
COPY_PIECE = 1 << 20


def _write_packed(submission_id: int, packed: bytes | bytearray) -> None:
    """The packed series sent in binary, a megabyte at a time: Django's client-side binding
    would send it as an escaped text literal, twice its size, and even a binary parameter of
    the whole stays in libpq's output buffer, which never shrinks, for the connection's life
    (a worker kept 30-45 MB after one 2,000,000-report upload). So it goes through COPY into a
    temporary table (stored EXTERNAL, as the series' own column: compressing the compressed
    pieces again only costs time) and from there into its row."""
    if connection.vendor != "postgresql":
        SampleSeries.objects.filter(submission_id=submission_id).update(columns=packed)
        return
    meta = SampleSeries._meta
    update = sql.SQL(
        "UPDATE {} SET {} = (SELECT data FROM packed_series_upload) WHERE {} = %s"
    ).format(
        sql.Identifier(meta.db_table),
        sql.Identifier(meta.get_field("columns").column),
        sql.Identifier(meta.pk.column),
    )
    with transaction.atomic():
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(
                "CREATE TEMPORARY TABLE packed_series_upload (data bytea) ON COMMIT DROP; "
                "ALTER TABLE packed_series_upload ALTER data SET STORAGE EXTERNAL"
            )
            copy_rows = "COPY packed_series_upload (data) FROM STDIN (FORMAT BINARY)"
            with cursor.copy(copy_rows) as copy:
                copy.write(COPY_SIGNATURE + (1).to_bytes(2, "big") + len(packed).to_bytes(4, "big"))
                view = memoryview(packed)
                for at in range(0, len(packed), COPY_PIECE):
                    copy.write(view[at : at + COPY_PIECE])
                copy.write(b"\xff\xff")
            cursor.execute(update, [submission_id])
            cursor.execute("DROP TABLE packed_series_upload")


def entry_create(
    *,
    contest: Contest,
    owner,
    declared: dict,
    log_file: File | None,
    submitted_at: datetime | None = None,
    enforce_deadline: bool = True,
    demo: str = "",
    extra_verdicts: Sequence[RuleVerdict] = (),
    log_seconds: float | None = None,
    command: str = "",
) -> Submission:
    """Store a new entry with its log, figures and verdicts, or nothing at all. `declared`
    holds the run's fields and the contest's track fields; the log may be None only for a
    track of declared figures (crash recovery). `log_seconds`: the deadline for reading the
    log (an upload's request passes LOG_PARSE_SECONDS)."""
    submitted_at = submitted_at or timezone.now()
    if enforce_deadline and not contest.is_open(submitted_at):
        raise ContestClosed(contest)
    declared_sizes_check(declared)
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
        log_seconds=log_seconds,
        command=command,
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
    apply_check(submission, checked)
    submission._history_user = owner
    # Packed before the transaction, and the parsed samples let go before the write: the
    # write copies the packed bytes again, and a 2,000,000-report series is 160 MB of arrays.
    series = _series_packed(checked.parsed)
    parsed_header = checked.parsed.settings if checked.parsed is not None else {}
    del checked
    try:
        with transaction.atomic():
            if log_file is not None:
                log_file.seek(0)
                submission.log.save(submission.log_name, log_file, save=False)
            submission.save()
            _store_series(submission, series)
            declared_settings_store(submission=submission)
            header_settings_store(submission=submission, settings=parsed_header)
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


def declared_sizes_check(declared: dict) -> None:
    """Refuse a declared server configuration holding a size the one size grammar cannot
    read (key_buffer_size = 1X): every rerun would refuse it, so the entrant hears it now."""
    family = family_of(
        server_family=declared.get("server_family") or "mysql",
        storage_engine=declared.get("storage_engine") or "",
    )
    problem = unreadable_size(declared.get("server_config") or "", family)
    if problem is not None:
        raise SubmissionRefused(problem, "server_config")


def _run_fingerprint(parsed: ParsedLog | None) -> str:
    if parsed is None or not len(parsed.series):
        return ""
    return series_fingerprint(series_columns(parsed.series))


def _discard_file(submission: Submission) -> None:
    if submission.log.name:
        submission.log.storage.delete(submission.log.name)


def entry_update(
    *,
    submission: Submission,
    declared: dict,
    by=None,
    reason: str = "",
    enforce_deadline: bool = True,
) -> Submission:
    """Change what the entrant declared (the run's and the track's fields), keep the change in the
    entry's history (who: `by`) and judge the entry again with the new declaration. The
    approval of edits to published entries is decided before, by submissions.entries.edits."""
    if enforce_deadline and not submission.contest.is_open():
        raise ContestClosed(submission.contest)
    before = entry_declared(submission)
    declared_sizes_check({**before, **declared})
    for name in DECLARED_FIELDS:
        if name in declared:
            setattr(submission, name, declared[name])
    fields = {field.name for field in submission.contest.track.fields}
    submission.track_declared = {
        **submission.track_declared,
        **{name: value for name, value in declared.items() if name in fields},
    }
    with transaction.atomic():
        after = entry_declared(submission)
        if after != before:
            submission.edited_at = timezone.now()
            # A verification of the machine, server, engine or settings as they were no longer
            # verifies the entry: every page says "verified before an edit" until an organizer
            # verifies it again (entries/outcome.py).
            if setup_changed(before, after):
                submission.setup_edited_at = submission.edited_at
            submission._history_user = by
            submission._change_reason = reason or None
            submission.save()
        checked = entry_rejudge(submission=submission)
        declared_settings_store(submission=checked)
        return checked


@transaction.atomic
def entry_rejudge(*, submission: Submission, version: RuleVersion | None = None) -> Submission:
    """Judge an entry again from its stored log (after its declaration or its rules changed),
    under `version` of the rules (the current one by default). Its save moves the contest's
    board version on (submissions/signals.py)."""
    checked = entry_check_stored(submission=submission, version=version)
    apply_check(submission, checked)
    # A re-check is not an edit: the history keeps what the entrant changed, not each verdict.
    submission.skip_history_when_saving = True
    try:
        submission.save()
    finally:
        del submission.skip_history_when_saving
    _store_series(submission, _series_packed(checked.parsed))
    header_settings_store(
        submission=submission, settings=checked.parsed.settings if checked.parsed else {}
    )
    return submission


@dataclass(frozen=True)
class RecheckOutcome:
    checked: int
    unreadable: int  # entries whose stored log the current parser or track refuses


def entry_recheck(*, submission: Submission, version: RuleVersion) -> bool:
    """Judge one entry of a contest's re-check under `version`, without ranking. Returns False
    when its stored log no longer passes (it is then marked not eligible, with the reason)."""
    try:
        entry_rejudge(submission=submission, version=version)
    except SubmissionRefused as refused:
        entry_mark_unreadable(submission=submission, reason=refused.message, version=version)
        return False
    return True


def contest_recheck(*, contest: Contest) -> RecheckOutcome:
    """Judge every entry of a contest again under its current rules, here and now (the
    background re-check is submissions.entries.rechecks). An entry whose stored log no longer passes
    (a stricter parser, a track that reads something else) is marked not eligible with the
    reason; the others are re-checked all the same and ranked once at the end."""
    version = rule_version_current(contest)
    checked = unreadable = 0
    for submission in contest.submissions.select_related("contest").iterator(chunk_size=100):
        if not entry_recheck(submission=submission, version=version):
            unreadable += 1
        checked += 1
    reference_results_refigure(contest=contest)
    contest_board_changed(contest_id=contest.pk)
    return RecheckOutcome(checked=checked, unreadable=unreadable)


def entry_mark_unreadable(
    *, submission: Submission, reason: str, version: RuleVersion | None = None
) -> Submission:
    """Keep the entry and its log, but take it out of the ranking, saying why. Its other
    verdicts go: they were made under rules it is no longer judged by."""
    message = f"The stored log no longer passes the checks: {reason}"
    submission.verdicts = [RuleVerdict("log_readable", Status.FAIL, message).as_dict()]
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
    """Give a contest its track's starting rules: the run's fields the track sets (its
    target rows, its terminal window) and the track's own parameters at their defaults."""
    track = contest.track
    for name, value in track.contest_defaults.items():
        setattr(contest, name, value)
    contest.track_rules = track.default_rules()
    contest.save()
    return contest


def entry_delete(*, submission: Submission) -> None:
    if not submission.contest.is_open():
        raise ContestClosed(submission.contest)
    name = submission.log.name
    storage = submission.log.storage
    with transaction.atomic():
        submission.delete()
        transaction.on_commit(lambda: storage.delete(name))
