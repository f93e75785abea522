"""Reading an entry's log the way its track reads it, refusing a log that lacks what the track
needs."""

from __future__ import annotations

from typing import IO

from django.conf import settings

from submissions import tracks
from submissions.entries.from_log import LogDeclaration, declaration_from_log
from submissions.entries.refusals import SubmissionRefused
from submissions.logparse import LogError, ParsedLog, key_type_log, parse_log, parse_log_runs
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


def parsed_log(track: tracks.Track, log_file: IO[bytes]) -> ParsedLog:
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


def log_declaration(*, track: tracks.Track, log_file: IO[bytes]) -> LogDeclaration:
    """The declaration fields an uploaded log states, read as an upload to `track` reads it
    (the same caps and the same refusals, naming the line), storing nothing."""
    return declaration_from_log(parsed_log(track, log_file))
