"""A contest's host board: every verification or comparison run at the contest's standard
verification scale, per registry host, with what it measured beside what its entry claims.

A rerun measures the entrant's solution (engine and settings) on the registry's own host: the
only like-for-like comparison the registry can make, so the runs at one scale on one host rank
the solutions as that host measured them. Rows are read from the runs' stored results (the
classic judge's figures: `runner/judge/classic.py`); a track whose judge does not
measure a figure leaves it empty.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields

from runner.host import host_of
from runner.models import RerunStatus, RerunVerdict, VerificationRun
from runner.targets import rerun_targets
from runner.verdicts import TERMINAL_RATES, settings_text
from submissions.board.order import ANONYMOUS
from submissions.models import Contest


@dataclass(frozen=True)
class HostBoardRow:
    run: int
    entry: int
    entrant: str
    solution: str  # the engine and the server's settings as the run read them back
    host: str
    target: str
    kind: str
    verdict: str
    scale: int
    repeats: int
    seconds_at_scale: float | None  # a repeat's time, the mean of the repeats
    # rows/s as the entry page measures a run's (the mean of the repeats); None for a run judged
    # before that was stored (judge it again)
    terminal_rate: float | None
    cliff: float | None  # the cliff's place, a fraction of the run, the mean of the repeats
    claim_seconds: float | None  # the entry's own run, at its own size
    # The terminal rate the entry page shows (measures/terminal.py), the run's measured alike.
    claim_terminal_rate: float | None
    claim_cliff: float | None
    # The claim's time over the scale the run was the claim drawn smaller at (its
    # claim_divisor): the time beside the run's (a run at 1/10 took 9.2-10.4% of its claim's,
    # docs/verification.md), never the full claim's.
    claim_seconds_at_scale: float | None = None

    @property
    def verdict_label(self) -> str:
        """The verdict's whole word, as the entry page says it ("Inconclusive")."""
        return RerunVerdict(self.verdict).label if self.verdict in RerunVerdict.values else ""


COLUMNS = tuple(each.name for each in fields(HostBoardRow))
# Sortable by any column; the default ranks the fastest run at the scale first.
DEFAULT_SORT = "seconds_at_scale"


def _mean(values: list) -> float | None:
    found = [float(value) for value in values if isinstance(value, int | float)]
    return statistics.fmean(found) if found else None


def row_of(run: VerificationRun) -> HostBoardRow:
    result = run.result if isinstance(run.result, dict) else {}
    reruns = [each for each in result.get("reruns", []) if isinstance(each, dict)]
    claim = result.get("claim") if isinstance(result.get("claim"), dict) else {}
    submission = run.submission
    target = rerun_targets().get(run.target)
    engine = submission.storage_engine or "the default engine"
    settings = settings_text(run.settings, target.family if target else "")
    return HostBoardRow(
        run=run.pk,
        entry=submission.pk,
        entrant=submission.entrant_name if submission.publish else ANONYMOUS,
        solution=f"{engine}{settings.replace(' (read back)', '')}",
        host=host_of(run),
        target=run.target,
        kind=run.kind,
        verdict=run.verdict,
        scale=run.scale,
        repeats=run.repeats,
        seconds_at_scale=_mean([each.get("seconds") for each in reruns]),
        terminal_rate=_mean(result.get(TERMINAL_RATES) or []),
        cliff=_mean([each.get("cliff_fraction") for each in reruns]),
        claim_seconds=claim.get("seconds"),
        claim_terminal_rate=submission.terminal_rate,
        claim_cliff=claim.get("cliff_fraction"),
        claim_seconds_at_scale=_at_scale(claim.get("seconds"), run.claim_divisor),
    )


def _at_scale(seconds, divisor: int) -> float | None:
    return float(seconds) / divisor if isinstance(seconds, int | float) else None


def host_board(contest: Contest, *, host: str = "", sort: str = DEFAULT_SORT) -> list[HostBoardRow]:
    """The runs at the contest's standard scale that finished with a verdict, on `host` (every
    host when empty), sorted by `sort` (a column, `-column` for descending; empty figures last).
    Empty when the contest sets no standard scale."""
    if not contest.verification_scale:
        return []
    runs = (
        VerificationRun.objects.filter(
            submission__contest=contest,
            scale=contest.verification_scale,
            status=RerunStatus.SUCCEEDED,
        )
        .exclude(verdict="")
        .select_related("submission")
    )
    rows = [row_of(run) for run in runs]
    if host:
        rows = [row for row in rows if row.host == host]
    return sorted_rows(rows, sort)


def sorted_rows(rows: list[HostBoardRow], sort: str) -> list[HostBoardRow]:
    descending = sort.startswith("-")
    column = sort.lstrip("-")
    if column not in COLUMNS:
        raise ValueError(f"cannot sort by {column!r}: sort by one of {', '.join(COLUMNS)}")
    present = [row for row in rows if getattr(row, column) is not None]
    missing = [row for row in rows if getattr(row, column) is None]
    present.sort(key=lambda row: (getattr(row, column), row.run), reverse=descending)
    return present + missing


def hosts_of(contest: Contest) -> list[str]:
    return sorted({row.host for row in host_board(contest)})


def row_data(row: HostBoardRow) -> dict:
    return asdict(row)


def csv_lines(rows: list[HostBoardRow]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for values in [COLUMNS, *([getattr(row, name) for name in COLUMNS] for row in rows)]:
        writer.writerow(["" if value is None else value for value in values])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
