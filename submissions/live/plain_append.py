"""A plain batch appended in one statement (PostgreSQL): the run's row, the batch and its
samples written together by one `UPDATE ... WHERE <everything the append checks>` with the
inserts behind it, without reading the run first nor locking it.

A batch is plain when every line is a plain report of the C benchmark (`logparse.resume`) and
its run's head is complete: its samples are then what the parse behind the head reads
(`services._record_progress`: the head's columns, and the report streamed before the batch,
whose rows and seconds are the run's own). The statement writes only when the token is still
usable and its user active, the run is the token's user's, of its contest and unsealed, the
batch is the next one, a report was streamed after the head, and the batch's first report comes
after the run's last (the parser's order check); line numbers follow the run's line count as
the statement finds it. Otherwise it writes nothing and the caller appends the batch the usual
way (`services.live_run_append`, under the run's lock), which answers a replay, a gap, a seal,
another's run, from the token read anew.

What the process keeps: each run's head layout (`_layouts`), once the head stopped growing
(shorter than the log), after which it never changes; and each witness token it read usable
(`_tokens`, for TOKEN_KEPT_SECONDS), so that an append is one statement. Neither decides
anything alone: the statement checks the token and the run in the database as it writes, so a
revoked or expired token, or a deactivated user, is refused from the next batch on. A kept token
only saves the read; the batch it brought is counted against the run's budget before the write
finds it revoked (and the DRF view refuses it, 401, as before).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

from submissions.live.models import LiveBatch, LiveRun, LiveSample, WitnessToken
from submissions.live.services import Appended, batch_text
from submissions.logparse.resume import ReportLayout, plain_reports, report_layout

_TOKEN = WitnessToken._meta.db_table
_RUN = LiveRun._meta.db_table
_BATCH = LiveBatch._meta.db_table
_SAMPLE = LiveSample._meta.db_table

# The token by its hash, when its user may act, with whether it is usable at the request's time.
# Names from the models; every value a parameter.
TOKEN_SQL = (
    "SELECT token.id, token.user_id, token.contest_id, token.revoked_at, token.expires_at, "  # noqa: S608  # nosec B608
    "token.revoked_at IS NULL AND (token.expires_at IS NULL OR token.expires_at > %s) "
    f"FROM {_TOKEN} AS token JOIN auth_user AS person ON person.id = token.user_id "
    "WHERE token.key_hash = %s AND person.is_active"
)
HEAD_SQL = (
    "SELECT length(head) - length(replace(head, E'\\n', '')), line_count, context "  # noqa: S608  # nosec B608
    f"FROM {_RUN} WHERE id = %s"
)
# Each value as the locked append writes it (services._write_append); the samples as one JSON
# array (one parameter, whatever their number; a float's shortest repr reads back exactly),
# each line numbered after the run's line count by its place in the batch. In SET, a column is
# its value before.
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
    "last_report_line = CASE WHEN %(reported)s THEN line_count + %(count)s "
    "ELSE last_report_line END "
    "WHERE id = %(run)s AND owner_id = %(owner)s AND contest_id = %(contest)s "
    "AND next_seq = %(seq)s AND sealed_at IS NULL "
    "AND (NOT %(reported)s OR (last_report_line > %(head_lines)s "
    "AND rows < %(first_rows)s AND elapsed_seconds <= %(first_seconds)s)) "
    f"AND EXISTS (SELECT FROM {_TOKEN} AS token JOIN auth_user AS person "
    "ON person.id = token.user_id WHERE token.id = %(token)s AND person.is_active "
    "AND token.revoked_at IS NULL AND (token.expires_at IS NULL OR token.expires_at > %(now)s)) "
    "RETURNING id, line_count - %(count)s AS lines_before), "
    f"batch AS (INSERT INTO {_BATCH} "
    "(run_id, seq, received_at, first_line, line_count, text, digest, machine) "
    "SELECT id, %(seq)s, %(now)s, lines_before + 1, %(count)s, %(text)s, %(digest)s, "
    "%(machine)s::jsonb FROM run), "
    f"samples AS (INSERT INTO {_SAMPLE} "
    "(run_id, line, rows, seconds, interval_rate, cumulative_rate, cost) "
    "SELECT run.id, run.lines_before + sample.number, sample.rows, sample.seconds, "
    "sample.interval_rate, sample.cumulative_rate, sample.cost "
    "FROM run, jsonb_to_recordset(%(samples)s::jsonb) AS sample(number bigint, rows bigint, "
    "seconds float8, interval_rate float8, cumulative_rate float8, cost jsonb) "
    "ON CONFLICT DO NOTHING) "
    "SELECT count(*) FROM run"
)


@dataclass(frozen=True)
class Token:
    """A witness token as an append needs it (the model is made only for the locked append)."""

    id: int
    user_id: int
    contest_id: int
    revoked_at: object
    expires_at: object

    def usable(self, now) -> bool:
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def model(self) -> WitnessToken:
        return WitnessToken(
            id=self.id, user_id=self.user_id, contest_id=self.contest_id,
            revoked_at=self.revoked_at, expires_at=self.expires_at,
        )  # fmt: skip


def read_token(cursor, *, key_hash: str, now) -> Token | None:
    """The token by its hash, read now; None for none (or one of an inactive user)."""
    cursor.execute(TOKEN_SQL, [now, key_hash], prepare=True)
    row = cursor.fetchone()
    return Token(*row[:5]) if row else None


# key_hash -> (the token, read usable, and until when it is kept: time.monotonic()).
_tokens: dict[str, tuple[Token, float]] = {}
TOKEN_KEPT_SECONDS = 60
KEPT_AT_MOST = 20_000  # each dictionary is emptied when it holds this many


def kept_token(key_hash: str, now) -> Token | None:
    kept = _tokens.get(key_hash)
    if kept is None or kept[1] < time.monotonic() or not kept[0].usable(now):
        return None
    return kept[0]


def keep_token(key_hash: str, token: Token) -> None:
    if len(_tokens) >= KEPT_AT_MOST:
        _tokens.clear()
    _tokens[key_hash] = (token, time.monotonic() + TOKEN_KEPT_SECONDS)


def forget_token(key_hash: str) -> None:
    _tokens.pop(key_hash, None)


# (database, run id) -> (the head's lines, its report layout or None), for heads that stopped
# growing.
_layouts: dict[tuple[str, int], tuple[int, ReportLayout | None]] = {}


def _head_layout(cursor, run_id: int) -> tuple[int, ReportLayout | None] | None:
    """(the head's line count, its report layout) once the head is complete; None while it may
    still grow (a batch is then parsed with it, as it grows)."""
    key = (cursor.connection.info.dbname, run_id)
    kept = _layouts.get(key)
    if kept is not None:
        return kept
    cursor.execute(HEAD_SQL, [run_id], prepare=True)
    row = cursor.fetchone()
    if row is None:
        return None
    head_lines, line_count, context = row
    if head_lines >= line_count:
        return None  # the head is the whole log so far
    if len(_layouts) >= KEPT_AT_MOST:
        _layouts.clear()
    # A run from before contexts were kept (none) stays with the locked append.
    _layouts[key] = kept = (head_lines, report_layout(context) if context else None)
    return kept


def plain_append(
    cursor,
    *,
    run_id: int,
    token: Token,
    seq: int,
    lines: list[str],
    machine: dict,
    unterminated: bool,
    now,
) -> Appended | None:
    """The batch appended in one statement when it is plain and the statement's checks hold
    (the module's docstring); None when not: nothing was written, and the caller appends it
    the usual way."""
    if unterminated:
        return None
    reports, head_lines = [], 0
    if lines:
        if not lines[0][:1].isdigit():
            return None  # not a report: no need to look the head up
        head = _head_layout(cursor, run_id)
        if head is None or head[1] is None:
            return None
        head_lines = head[0]
        reports = plain_reports(head[1], lines, -1, float("-inf"))
        if reports is None:
            return None
    text = batch_text(lines, False)
    first = reports[0] if reports else None
    last = reports[-1] if reports else None
    cursor.execute(
        APPEND_SQL,
        prepare=True,
        params={
            "run": run_id,
            "owner": token.user_id,
            "contest": token.contest_id,
            "token": token.id,
            "seq": seq,
            "count": len(lines),
            "bytes": len(text),  # ASCII: a plain batch's characters are its bytes
            "now": now,
            "reported": last is not None,
            "head_lines": head_lines,
            "first_rows": first.rows if first else 0,
            "first_seconds": first.seconds if first else 0.0,
            "rows": last.rows if last else 0,
            "seconds": last.seconds if last else 0.0,
            "current_rate": last.interval_rate if last else 0.0,
            "cumulative_rate": last.cumulative_rate if last else 0.0,
            "last_report": lines[-1] if last else "",
            "text": text,
            "digest": hashlib.sha256(text.encode()).hexdigest(),
            "machine": json.dumps(machine),
            "samples": json.dumps(
                [
                    {
                        "number": number,
                        "rows": report.rows,
                        "seconds": report.seconds,
                        "interval_rate": report.interval_rate,
                        "cumulative_rate": report.cumulative_rate,
                        "cost": report.cost,
                    }
                    for number, report in enumerate(reports, 1)
                ]
            ),
        },
    )
    (written,) = cursor.fetchone()
    return Appended(seq + 1, False, now) if written else None
