"""Reading an entry's log the way its track reads it, refusing a log that lacks what the track
needs."""

from __future__ import annotations

from typing import IO

from django.conf import settings

from submissions import tracks
from submissions.entries.from_log import LogDeclaration, declaration_from_log
from submissions.entries.refusals import LogTooLarge, SubmissionRefused
from submissions.logparse import LogError, ParsedLog, key_type_log, parse_log, parse_log_runs
from submissions.logparse.errors import LogTooLarge as LogLimitReached
from submissions.measures.plausibility import implausible

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


# The setting behind each limit the parser may stop at (submissions.logparse.errors.LIMITS).
LIMIT_SETTINGS = {
    "lines": "LOG_MAX_LINES",
    "expanded_bytes": "LOG_EXPANDED_MAX_BYTES",
    "reports": "LOG_MAX_REPORTS",
    "statements": "the statements a log may keep beside its reports",
    "seconds": "LOG_PARSE_SECONDS",
}


def parsed_log(
    track: tracks.Track, log_file: IO[bytes], *, max_seconds: float | None = None
) -> ParsedLog:
    """The log read as `track` reads it, within the upload limits (every line, every expanded
    byte, the reports); `max_seconds`: a deadline for reading it, for what a request reads (a
    re-check in a worker reads an accepted log without one). Refusals name the line; a limit
    reached is a LogTooLarge naming its setting."""
    log_file.seek(0)
    limits = {
        "max_expanded_bytes": settings.LOG_EXPANDED_MAX_BYTES,
        "max_lines": settings.LOG_MAX_LINES,
        "max_seconds": max_seconds,
    }
    try:
        if track.log == tracks.LOG_KEY_TYPES:
            parsed = key_type_log(parse_log_runs(log_file, **limits))
        else:
            parsed = parse_log(log_file, max_reports=settings.LOG_MAX_REPORTS, **limits)
    except LogLimitReached as error:
        setting = LIMIT_SETTINGS[error.limit]
        raise LogTooLarge(f"{error} (the limit: {setting})", setting) from error
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


def log_declaration(*, track: tracks.Track, log_file: IO[bytes]) -> LogDeclaration:
    """The declaration fields an uploaded log states, read as an upload to `track` reads it
    (the same caps, deadline and refusals, naming the line), storing nothing."""
    return declaration_from_log(parsed_log(track, log_file, max_seconds=settings.LOG_PARSE_SECONDS))
