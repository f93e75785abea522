"""A plain batch appended in one statement: the run's row, the batch and its samples written
together by one `UPDATE ... WHERE next_seq = <the batch's seq>` with the inserts behind it,
without a lock taken first (PostgreSQL).

What the append reads is read with the token, in the request's first statement (`STANDING_SQL`:
the token, whether it is usable, and the run's counters). A batch is plain when it is the next
one of an unsealed run of the token's contest whose head is complete, and every line is a plain
report of the C benchmark (`logparse.resume`): its samples are then what the parse behind the
head reads (`services._record_progress`), computed from the report before it (the run's rows
and seconds), not from the head read again. The write changes nothing unless the run is still
where it was read (same `next_seq` and line count, unsealed): when a concurrent append or a
seal got there first it writes nothing and the append is made the usual way
(`services.live_run_append`, under the run's lock), which answers a replay, a gap, a seal.

The head's report layout is kept by the process (`_layouts`): once the head stopped growing
(shorter than the log) it never changes again, so nothing kept can go stale.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

from django.db import connection

from submissions.live.models import LiveBatch, LiveRun, LiveSample, WitnessToken
from submissions.live.services import Appended, batch_text
from submissions.logparse.resume import ReportLayout, plain_reports, report_layout

_TOKEN = WitnessToken._meta.db_table
_RUN = LiveRun._meta.db_table
_BATCH = LiveBatch._meta.db_table
_SAMPLE = LiveSample._meta.db_table

# The token by its hash (whether its user may act and whether it is usable at the request's
# time), with the counters of the run an append names when that run is the token's user's.
# Names from the models; every value a parameter.
STANDING_SQL = (
    "SELECT token.id, token.user_id, token.contest_id, token.revoked_at, token.expires_at, "  # noqa: S608  # nosec B608
    "token.revoked_at IS NULL AND (token.expires_at IS NULL OR token.expires_at > %(now)s), "
    "run.contest_id, run.next_seq, run.sealed_at IS NULL, run.line_count, run.last_report_line, "
    "run.rows, run.elapsed_seconds, run.last_report "
    f"FROM {_TOKEN} AS token JOIN auth_user AS person ON person.id = token.user_id "
    f"LEFT JOIN {_RUN} AS run ON run.id = %(run)s AND run.owner_id = token.user_id "
    "WHERE token.key_hash = %(key_hash)s AND person.is_active"
)
HEAD_SQL = (
    "SELECT length(head) - length(replace(head, E'\\n', '')), line_count, context "  # noqa: S608  # nosec B608
    f"FROM {_RUN} WHERE id = %s"
)
# Each value as the locked append writes it (services._write_append); the samples as one JSON
# array (one parameter, whatever their number; a float's shortest repr reads back exactly).
APPEND_SQL = (
    f"WITH run AS (UPDATE {_RUN} SET next_seq = %(seq)s + 1, "  # noqa: S608  # nosec B608
    "line_count = line_count + %(count)s, byte_count = byte_count + %(bytes)s, "
    "last_batch_at = %(now)s, "
    "last_line_at = CASE WHEN %(reported)s THEN %(now)s ELSE last_line_at END, "
    "rows = CASE WHEN %(reported)s THEN %(rows)s ELSE rows END, "
    "elapsed_seconds = CASE WHEN %(reported)s THEN %(seconds)s ELSE elapsed_seconds END, "
    "current_rate = CASE WHEN %(reported)s THEN %(current_rate)s ELSE current_rate END, "
    "cumulative_rate = CASE WHEN %(reported)s THEN %(cumulative_rate)s ELSE cumulative_rate END, "
    "last_report = CASE WHEN %(reported)s THEN %(last_report)s ELSE last_report END, "
    "last_report_line = CASE WHEN %(reported)s THEN %(last_report_line)s "
    "ELSE last_report_line END "
    "WHERE id = %(run)s AND owner_id = %(owner)s AND next_seq = %(seq)s "
    "AND line_count = %(line_count)s AND sealed_at IS NULL RETURNING id), "
    f"batch AS (INSERT INTO {_BATCH} "
    "(run_id, seq, received_at, first_line, line_count, text, digest, machine) "
    "SELECT id, %(seq)s, %(now)s, %(line_count)s + 1, %(count)s, %(text)s, %(digest)s, "
    "%(machine)s::jsonb FROM run), "
    f"samples AS (INSERT INTO {_SAMPLE} "
    "(run_id, line, rows, seconds, interval_rate, cumulative_rate, cost) "
    "SELECT run.id, sample.line, sample.rows, sample.seconds, sample.interval_rate, "
    "sample.cumulative_rate, sample.cost FROM run, jsonb_to_recordset(%(samples)s::jsonb) "
    "AS sample(line bigint, rows bigint, seconds float8, interval_rate float8, "
    "cumulative_rate float8, cost jsonb) "
    "ON CONFLICT DO NOTHING) "
    "SELECT count(*) FROM run"
)


@dataclass(frozen=True)
class RunCounters:
    """What an append reads of its run, read with the token."""

    contest_id: int
    next_seq: int
    unsealed: bool
    line_count: int
    last_report_line: int
    rows: int
    elapsed_seconds: float
    last_report: str


@dataclass(frozen=True)
class Standing:
    """A request's token (usable or not) and the run it names, when that run is the token's
    user's (else None). The token's model is made only when the locked append needs it."""

    user_id: int
    contest_id: int
    usable: bool
    run: RunCounters | None
    token_fields: dict

    @classmethod
    def of(cls, token: WitnessToken, now) -> Standing:
        return cls(token.user_id, token.contest_id, token.usable(now), None, {"token": token})

    def token(self) -> WitnessToken:
        return self.token_fields.get("token") or WitnessToken(**self.token_fields)


def standing(cursor, *, key_hash: str, run_id: int, now) -> Standing | None:
    """The token by its hash and the run it appends to, in one statement; None for no token
    (or one of an inactive user)."""
    cursor.execute(STANDING_SQL, {"now": now, "run": run_id, "key_hash": key_hash}, prepare=True)
    row = cursor.fetchone()
    if row is None:
        return None
    token_id, user_id, contest_id, revoked_at, expires_at, usable, *run = row
    fields = {"id": token_id, "user_id": user_id, "contest_id": contest_id,
              "revoked_at": revoked_at, "expires_at": expires_at}  # fmt: skip
    return Standing(
        user_id, contest_id, usable, RunCounters(*run) if run[0] is not None else None, fields
    )


# (database, run id) -> (the head's lines, its report layout or None), for heads that stopped
# growing. A few hundred bytes each; emptied when it holds this many.
_layouts: dict[tuple[str, int], tuple[int, ReportLayout | None]] = {}
LAYOUTS_KEPT = 20_000


def _head_layout(cursor, run_id: int) -> tuple[int, ReportLayout | None] | None:
    """(the head's line count, its report layout) once the head is complete; None while it may
    still grow (a batch is then parsed with it, as it grows)."""
    key = (connection.settings_dict["NAME"], run_id)
    kept = _layouts.get(key)
    if kept is not None:
        return kept
    cursor.execute(HEAD_SQL, [run_id])
    row = cursor.fetchone()
    if row is None:
        return None
    head_lines, line_count, context = row
    if head_lines >= line_count or not context:
        return None  # the head is the whole log so far (or a run from before contexts)
    if len(_layouts) >= LAYOUTS_KEPT:
        _layouts.clear()
    _layouts[key] = kept = (head_lines, report_layout(context))
    return kept


def _behind_last_report(layout: ReportLayout, run: RunCounters, lines: list[str]):
    """The batch's reports read behind the last report streamed (the one the parse behind the
    head carries), when that report is the run's last point as stored: its seconds are then
    those of the whole log (a layout of totals, as the C benchmark prints)."""
    carried = plain_reports(layout, [run.last_report], -1, -math.inf)
    if not carried or carried[0].seconds != run.elapsed_seconds or carried[0].rows != run.rows:
        return None
    return plain_reports(layout, lines, run.rows, run.elapsed_seconds)


def plain_append(
    cursor,
    *,
    run_id: int,
    standing: Standing,
    seq: int,
    lines: list[str],
    machine: dict,
    unterminated: bool,
    now,
) -> Appended | None:
    """The batch appended in one statement when it is plain (the module's docstring); None when
    it is not, or when the run moved since it was read: nothing was written, and the caller
    appends it the usual way."""
    run = standing.run
    if run is None or run.contest_id != standing.contest_id:
        return None
    if not run.unsealed or seq != run.next_seq or unterminated:
        return None
    reports = []
    if lines:
        head = _head_layout(cursor, run_id)
        if head is None or head[1] is None or run.last_report_line <= head[0]:
            return None  # no report streamed after the head yet: parsed as before
        reports = _behind_last_report(head[1], run, lines)
        if reports is None:
            return None
    text = batch_text(lines, False)
    first_line = run.line_count + 1
    last = reports[-1] if reports else None
    cursor.execute(
        APPEND_SQL,
        prepare=True,
        params={
            "run": run_id,
            "owner": standing.user_id,
            "seq": seq,
            "line_count": run.line_count,
            "count": len(lines),
            "bytes": len(text),  # ASCII: a plain batch's characters are its bytes
            "now": now,
            "reported": last is not None,
            "rows": last and last.rows,
            "seconds": last and last.seconds,
            "current_rate": last and last.interval_rate,
            "cumulative_rate": last and last.cumulative_rate,
            "last_report": lines[-1] if last else None,
            "last_report_line": run.line_count + len(lines),
            "text": text,
            "digest": hashlib.sha256(text.encode()).hexdigest(),
            "machine": json.dumps(machine),
            "samples": json.dumps(
                [
                    {
                        "line": line,
                        "rows": report.rows,
                        "seconds": report.seconds,
                        "interval_rate": report.interval_rate,
                        "cumulative_rate": report.cumulative_rate,
                        "cost": report.cost,
                    }
                    for line, report in enumerate(reports, first_line)
                ]
            ),
        },
    )
    (written,) = cursor.fetchone()
    return Appended(seq + 1, False, now) if written else None
