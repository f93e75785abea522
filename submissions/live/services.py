"""Writes of the live side: witness tokens, opening a live run, appending its batches and
sealing it into an ordinary entry. Views and the API parse input and call these."""

from __future__ import annotations

import hashlib
import io
import math
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

import psycopg
from django.conf import settings
from django.core.files.base import ContentFile
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections, transaction
from django.utils import timezone

from submissions.caches.compiled import preparing
from submissions.contests import ranks as contest_ranks
from submissions.contests.rules import RuleVerdict
from submissions.entries import checks as entry_checks
from submissions.entries import refusals
from submissions.entries import services as registry
from submissions.live import seal_rules
from submissions.live.models import LiveBatch, LiveRun, LiveSample, WitnessToken
from submissions.logparse import LogError, parse_log
from submissions.logparse.c_format import settings_dropped, without_settings
from submissions.logparse.model import COST_FIELDS, Series
from submissions.models import Contest

TOKEN_PREFIX = "iiw_"  # noqa: S105 - a prefix people recognise, not a secret  # nosec B105
# The start of a run kept whole (LiveRun.head) so that a batch parsed behind it reads as the
# same format: every line up to the first report, however long the header (the C benchmark's
# on MariaDB lists ~700 `# setting` lines), then this many lines more (a format whose reading
# depends on its first reports, as spring 2009's interval seconds do).
HEAD_LINES = 60


class LiveRefused(Exception):
    """An append or a seal the registry will not take; `status` is the HTTP answer."""

    def __init__(self, status: int, message: str, **details):
        super().__init__(message)
        self.status = status
        self.message = message
        self.details = details


def token_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def witness_token_create(*, user, contest: Contest) -> tuple[WitnessToken, str]:
    """A new token for streaming runs into one contest. Returns it with its key, which is
    never stored and so can be shown only now."""
    key = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = WitnessToken.objects.create(
        user=user,
        contest=contest,
        key_hash=token_hash(key),
        expires_at=timezone.now() + timedelta(days=settings.WITNESS_TOKEN_DAYS),
    )
    return token, key


def witness_token_revoke(*, token: WitnessToken) -> WitnessToken:
    WitnessToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    token.refresh_from_db(fields=["revoked_at"])
    return token


def live_run_open(
    *, token: WitnessToken, run_key: str, declared: dict, machine: dict, command: str = ""
) -> tuple[LiveRun, bool]:
    """Open a live run, or find the one this key already opened (a retried open whose answer
    was lost). Returns the run and whether it is new."""
    contest = token.contest
    if not contest.is_open():
        raise refusals.ContestClosed(contest)
    # The declaration is judged now, so an entrant learns of a bad field before a 20-day run.
    entry_checks.track_declared(contest.track, declared)
    existing = LiveRun.objects.filter(owner=token.user, run_key=run_key).first()
    if existing:
        return existing, False
    try:
        with transaction.atomic():
            run = LiveRun.objects.create(
                contest=contest,
                owner=token.user,
                token=token,
                run_key=run_key,
                declared=declared,
                machine=machine,
                command=command[:1000],
            )
            # The contest page (cached per board version) lists the runs streaming into it.
            contest_ranks.contest_board_changed(contest_id=contest.pk)
    except IntegrityError:
        return LiveRun.objects.get(owner=token.user, run_key=run_key), False
    return run, True


@dataclass(frozen=True)
class Appended:
    next_seq: int
    replayed: bool
    received_at: object


def batch_text(lines: list[str], unterminated: bool) -> str:
    text = "".join(line + "\n" for line in lines)
    return text[:-1] if unterminated and text else text


def _runs_own(run: LiveRun | None, token: WitnessToken) -> LiveRun:
    """The run when the token may stream into it: 404 for anyone else's (or none), 403 for a
    token of another contest."""
    if run is None:
        raise LiveRefused(404, "No such live run of yours.")
    if run.contest_id != token.contest_id:
        raise LiveRefused(
            403,
            f"This witness token streams into {token.contest.slug}, not into this run's contest.",
        )
    return run


def locked_run(*, run_id: int, token: WitnessToken) -> LiveRun:
    """The token's user's run, locked for this transaction: 404 for anyone else's, 403 for a
    token of another contest. The row lock orders concurrent appends and seals of one run."""
    run = LiveRun.objects.select_for_update().filter(pk=run_id, owner_id=token.user_id).first()
    return _runs_own(run, token)


# What an append reads of its run (never the declaration, the machine or the seal's fields),
# in the model's order of fields, as LiveRun.from_db takes them.
APPEND_FIELDS = tuple(
    field.attname
    for field in LiveRun._meta.concrete_fields
    if field.attname in {
        "id", "owner_id", "contest_id", "next_seq", "line_count", "byte_count", "head",
        "context", "last_report", "last_report_line", "rows", "elapsed_seconds",
        "current_rate", "cumulative_rate", "sealed_at", "last_batch_at", "last_line_at",
    }
)  # fmt: skip
_RUN = LiveRun._meta.db_table
_BATCH = LiveBatch._meta.db_table
_SAMPLE = LiveSample._meta.db_table
# Statements of the append, written once: an append is the hottest request of the registry,
# and the ORM's compiling of each statement cost more than PostgreSQL's running it.
# Table and column names come from the models; every value is a parameter.
LOCK_RUN_SQL = (
    f"SELECT {', '.join(APPEND_FIELDS)} FROM {_RUN} "  # noqa: S608  # nosec B608
    "WHERE id = %s AND owner_id = %s"
)
STORED_BATCH_SQL = f"SELECT digest, received_at FROM {_BATCH} WHERE run_id = %s AND seq = %s"  # noqa: S608  # nosec B608
INSERT_BATCH_SQL = (
    f"INSERT INTO {_BATCH} "  # noqa: S608  # nosec B608
    "(run_id, seq, received_at, first_line, line_count, text, digest, machine) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
SAMPLE_COLUMNS = ("run_id", "line", "rows", "seconds", "interval_rate", "cumulative_rate", "cost")


@contextmanager
def prepared_cursor() -> Iterator:
    """A cursor (bound on the server) whose statements executed with `prepare=True`
    PostgreSQL parses and plans once per connection, with Django's wrapping of database
    errors (a server that is down answers 503, as everywhere). Django's own cursor elsewhere
    (SQLite)."""
    database = connections[DEFAULT_DB_ALIAS]  # once: each use of the proxy is a lookup
    if database.vendor != "postgresql":
        with database.cursor() as cursor:
            yield cursor
        return
    # As Django's own cursor does: a persistent connection the server dropped (a restart) is
    # replaced here, not found dead by the query (CONN_HEALTH_CHECKS).
    database.close_if_health_check_failed()
    database.ensure_connection()
    driver = preparing(database.connection)
    with database.wrap_database_errors, psycopg.Cursor(driver) as cursor:
        yield cursor


def _locked_for_append(cursor, *, run_id: int, token: WitnessToken) -> LiveRun:
    """locked_run, reading only what an append needs, in one prepared statement (PostgreSQL;
    SQLite, which locks the whole database and hands back its own types, reads it through
    the ORM)."""
    if connection.vendor == "postgresql":
        cursor.execute(LOCK_RUN_SQL + " FOR UPDATE", [run_id, token.user_id], prepare=True)
        row = cursor.fetchone()
        run = LiveRun.from_db(connection.alias, APPEND_FIELDS, row) if row else None
    else:
        run = LiveRun.objects.filter(pk=run_id, owner_id=token.user_id).only(*APPEND_FIELDS)
        run = run.first()
    return _runs_own(run, token)


def _stored_batch(cursor, run_id: int, seq: int) -> tuple[str, object]:
    """(digest, received_at) of the batch stored under `seq`."""
    if connection.vendor != "postgresql":
        stored = LiveBatch.objects.filter(run_id=run_id, seq=seq)
        return stored.values_list("digest", "received_at").get()
    cursor.execute(STORED_BATCH_SQL, [run_id, seq], prepare=True)
    return cursor.fetchone()


def _json(model, field: str, value):
    return model._meta.get_field(field).get_db_prep_save(value, connection)


@transaction.atomic
def live_run_append(
    *,
    run_id: int,
    token: WitnessToken,
    seq: int,
    lines: list[str],
    machine: dict,
    unterminated: bool = False,
) -> Appended:
    """Append one batch. Idempotent: the batch already stored under `seq` is acknowledged
    again, never stored twice; a gap in the sequence is refused with the expected number.
    Two statements: the run locked, then the batch, its samples and the run's row."""
    with prepared_cursor() as cursor:
        run = _locked_for_append(cursor, run_id=run_id, token=token)
        text = batch_text(lines, unterminated)
        digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
        if seq < run.next_seq:
            stored_digest, received_at = _stored_batch(cursor, run.pk, seq)
            if stored_digest != digest:
                raise LiveRefused(
                    409,
                    f"Batch {seq} was already received with other lines; the next batch is "
                    f"{run.next_seq}.",
                    expected_seq=run.next_seq,
                )
            return Appended(run.next_seq, True, received_at)
        if run.sealed_at is not None:
            raise LiveRefused(403, "This run is sealed: it takes no more lines.")
        if seq > run.next_seq:
            raise LiveRefused(
                409,
                f"Batch {seq} is out of order: the registry expects batch {run.next_seq}.",
                expected_seq=run.next_seq,
            )
        now = timezone.now()
        first_line = run.line_count + 1
        batch = [run.pk, seq, now, first_line, len(lines), text, digest,
                 _json(LiveBatch, "machine", machine)]  # fmt: skip
        run.next_seq = seq + 1
        run.line_count += len(lines)
        run.byte_count += len(text.encode())
        run.last_batch_at = now
        changed, samples = ["next_seq", "line_count", "byte_count", "last_batch_at"], []
        if lines:
            run.last_line_at = now
            progress, samples = _record_progress(run, first_line, text)
            changed += ["last_line_at", *progress]
        _write_append(cursor, batch, samples, run, changed)
    return Appended(run.next_seq, False, now)


def _write_append(cursor, batch: list, samples: list[tuple], run: LiveRun, changed) -> None:
    """The batch, its samples (one multi-row insert; a line already stored is kept as it was)
    and the run's row: one statement on PostgreSQL (a round trip, not three), three on SQLite
    (no INSERT inside WITH)."""
    fields = [LiveRun._meta.get_field(name) for name in dict.fromkeys(changed)]
    assignments = ", ".join(f"{field.column} = %s" for field in fields)
    update_sql = f"UPDATE {_RUN} SET {assignments} WHERE id = %s"  # noqa: S608  # nosec B608
    update = [field.get_db_prep_save(getattr(run, field.attname), connection) for field in fields]
    row = "(" + ", ".join(["%s"] * len(SAMPLE_COLUMNS)) + ")"
    samples_sql = (
        f"INSERT INTO {_SAMPLE} ({', '.join(SAMPLE_COLUMNS)}) "  # noqa: S608  # nosec B608
        f"VALUES {', '.join([row] * len(samples))} ON CONFLICT DO NOTHING"
    )
    sampled = [value for sample in samples for value in sample]
    if connection.vendor == "postgresql":
        writes = [f"batch AS ({INSERT_BATCH_SQL})"]
        if samples:
            writes.append(f"samples AS ({samples_sql})")
        cursor.execute(
            f"WITH {', '.join(writes)} {update_sql}", [*batch, *sampled, *update, run.pk]
        )
        return
    cursor.execute(INSERT_BATCH_SQL, batch)
    if samples:
        cursor.execute(samples_sql, sampled)
    cursor.execute(update_sql, [*update, run.pk])


def _record_progress(run: LiveRun, first_line: int, text: str) -> tuple[list[str], list[tuple]]:
    """Parse the new lines behind what earlier batches left (`LiveRun.context`: the log's head
    without its `# setting` lines; `last_report`: the last report line streamed after
    it) and keep their report lines as samples. The cost is the head's and the batch's, never
    the run's length so far. Best effort: the whole log is parsed when the run is sealed; a
    batch the parser cannot read yet (a header still arriving) just adds no point to the
    live curve. Returns the run's fields it changed and the samples to store."""
    changed = []
    head_lines = run.head.count("\n")
    if not run.context and run.head:  # a run opened before contexts were kept
        run.context = settings_dropped(run.head)
        changed.append("context")
    whole = head_lines == first_line - 1  # the head is the whole log so far
    carry = not whole and run.last_report_line > head_lines
    document = run.context + (run.last_report + "\n" if carry else "") + without_settings(text)
    # The document's lines before the batch's: the context has no `# setting` lines (all in
    # the header, before any report), so a report's number in the log is its number in the
    # document plus `offset`, in the batch and (while the head is the whole log) in the head.
    context_lines = run.context.count("\n") + carry
    offset = first_line - context_lines - 1
    try:
        series = parse_log(io.BytesIO(document.encode())).series
    except (LogError, ValueError):
        series = None
    if whole:
        first_report = int(series.line[0]) + offset if series is not None and len(series) else None
        changed += _keep_head(run, run.head + text, first_report)
    if series is None:
        return changed, []
    before = [i for i in range(len(series)) if series.line[i] <= context_lines]
    new = [i for i in range(len(series)) if series.line[i] > context_lines]
    shift = 0.0
    if before and (carry or (not whole and new and series.seconds[new[0]] < run.elapsed_seconds)):
        # A layout whose seconds are intervals (Python iibench of spring 2009): the parser
        # summed them from the head's reports, not from the start. The report before the
        # batch (the carried one) is at run.elapsed_seconds in the whole log; for a layout of
        # totals the shift is nothing. (Without a carried report, a run opened before they
        # were kept: its seconds fell behind the last one streamed.)
        shift = run.elapsed_seconds - series.seconds[before[-1]]
    fresh = [
        (
            run.pk,
            int(series.line[i]) + offset,
            int(series.rows[i]),
            float(series.seconds[i]) + shift,
            _nullable_float(series.interval_rate[i]),
            _nullable_float(series.cumulative_rate[i]),
            _json(LiveSample, "cost", _sample_cost(series, i)),
        )
        for i in new
    ]
    if not fresh:
        return changed, []
    _, line, rows, seconds, interval_rate, cumulative_rate, _ = fresh[-1]
    run.rows, run.elapsed_seconds = rows, seconds
    run.current_rate, run.cumulative_rate = interval_rate, cumulative_rate
    # The next batch is read behind this report: a rate or a time a format works out from
    # the report before it comes out as it would in the whole log.
    run.last_report = text.split("\n")[int(series.line[new[-1]]) - context_lines - 1]
    run.last_report_line = line
    return [
        *changed,
        *("rows", "elapsed_seconds", "current_rate", "cumulative_rate"),
        *("last_report", "last_report_line"),
    ], fresh


def _nullable_float(value) -> float | None:
    return None if value is None else float(value)


def _keep_head(run: LiveRun, log: str, first_report: int | None) -> list[str]:
    """Keep the log so far as the head until it holds its first report (the log's line
    `first_report`) and HEAD_LINES lines after it (capped at LIVE_HEAD_MAX_BYTES, far above
    any header); the context each batch is parsed behind is the head without its `# setting`
    lines (a MariaDB server's ~700: the live curve wants only the reports)."""
    lines = log.splitlines(keepends=True)
    if first_report is not None:
        lines = lines[: first_report - 1 + HEAD_LINES]
    head = "".join(lines)
    if len(head.encode()) > settings.LIVE_HEAD_MAX_BYTES:
        return []  # kept as it was: the seal parses the whole log
    run.head = head
    run.context = settings_dropped(head)
    return ["head", "context"]


def _sample_cost(series: Series, index: int) -> dict[str, float]:
    """The report's cost columns that it measured (an unmeasured one is NaN: left out)."""
    cost = {}
    for name in COST_FIELDS:
        column = getattr(series, name)
        if column is not None and math.isfinite(column[index]):
            cost[name] = column[index]
    return cost


def assembled_log(run: LiveRun) -> bytes:
    texts = LiveBatch.objects.filter(run=run).order_by("seq").values_list("text", flat=True)
    return "".join(texts).encode()


def _clock_tolerance() -> seal_rules.ClockTolerance:
    return seal_rules.ClockTolerance(
        seconds=settings.LIVE_CLOCK_TOLERANCE_SECONDS,
        fraction=settings.LIVE_CLOCK_TOLERANCE_FRACTION,
        max_lag_seconds=settings.LIVE_CLOCK_MAX_LAG_SECONDS,
    )


def run_seal_verdicts(run: LiveRun, log: bytes, exit_status: int | None) -> list[RuleVerdict]:
    try:
        series = parse_log(
            io.BytesIO(log), max_expanded_bytes=settings.LOG_EXPANDED_MAX_BYTES
        ).series
    except LogError:
        series = None
    reports = (
        [
            seal_rules.Report(int(series.line[i]), int(series.rows[i]), float(series.seconds[i]))
            for i in range(len(series))
        ]
        if series is not None
        else []
    )
    receipts = [
        seal_rules.Receipt(
            first_line=first,
            last_line=first + count - 1,
            seconds=(received - run.opened_at).total_seconds(),
        )
        for first, count, received in LiveBatch.objects.filter(run=run, line_count__gt=0)
        .order_by("seq")
        .values_list("first_line", "line_count", "received_at")
    ]
    return seal_rules.seal_verdicts(
        reports=reports,
        receipts=receipts,
        tolerance=_clock_tolerance(),
        declared=run.declared,
        machine=run.machine,
        exit_status=exit_status,
    )


def live_run_seal(
    *, run_id: int, token: WitnessToken, exit_status: int | None, batches: int
) -> LiveRun:
    """Seal the run: its assembled log becomes an entry, judged by the usual rules and the seal
    rules. Sealing again answers with the sealed run. `batches` is how many the client sent:
    a seal with batches still missing is refused, naming the next one expected."""
    with transaction.atomic():
        run = locked_run(run_id=run_id, token=token)
        if run.sealed_at is not None:
            return run
        if batches != run.next_seq:
            raise LiveRefused(
                409,
                f"The client sent {batches} batches; the registry has {run.next_seq}: send "
                f"batch {run.next_seq} before sealing.",
                expected_seq=run.next_seq,
            )
        log = assembled_log(run)
        verdicts = run_seal_verdicts(run, log, exit_status)
        now = timezone.now()
        run.sealed_at, run.exit_status = now, exit_status
        run.seal_verdicts = [verdict.as_dict() for verdict in verdicts]
        # `witnessed` is the field's old name for the level now called streamed (entries/trust.py).
        run.witnessed = False
        try:
            # A savepoint: a refused log leaves the run sealed with the reason, nothing else.
            with transaction.atomic():
                run.submission = registry.entry_create(
                    contest=run.contest,
                    owner=run.owner,
                    declared=run.declared,
                    log_file=ContentFile(log, name=f"streamed-run-{run.pk}.log"),
                    submitted_at=now,
                    extra_verdicts=verdicts,
                    command=run.command,
                )
            run.witnessed = seal_rules.streamed(verdicts)
        except refusals.SubmissionRefused as refused:
            run.seal_message = f"Sealed without an entry: {refused.message}"[:500]
        run.save()
    return run
