"""A board's rows, an entry's or a reference result's, as every output shows them."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from submissions import tracks
from submissions.entries.outcome import outcome_of
from submissions.entries.trust import trust_of
from submissions.measures.costs import BOARD_COSTS
from submissions.models import ReferenceResult, hardware_summary


@dataclass(slots=True)
class BoardRow:
    """One row of a board, an entry or a reference result, as every output shows it."""

    id: int
    rank: int | None
    entrant: str
    storage_engine: str
    hardware: str
    elapsed_seconds: float | None  # measured; None when the source gives only an estimate
    estimated: bool  # seconds_to_target is an extrapolation
    terminal_rate: float | None
    average_rate: float | None
    verified: bool
    reference: bool
    ranked: bool
    reason: str = ""
    trust: str = ""  # an entry's trust level; "" for a reference row
    rows: int | None = None
    size_gib: float | None = None
    source: str = ""
    # The track's figures (the same keys as Submission.track_figures), its ranking metric and
    # the label of its class ("keys=4, row length=64"); empty on a board of the run's own figures.
    track_figures: dict = field(default_factory=dict)
    track_metric: float | None = None
    track_class: str = ""
    seconds_to_target: float | None = None  # measured or, when `estimated`, extrapolated
    estimate_basis: str = ""
    demo: str = ""  # "demo" or "synthetic": demo data, not an entrant's result
    # The time to the target reads the same as a ranked neighbour's: the terminal rate decides.
    tie_break: bool = False
    # The verification outcome's state (entries/outcome.py: "reproduced", "shape_only",
    # "not_reproduced", "inconclusive", "before_edit" or "") and its sentence.
    verification: str = ""
    verification_words: str = ""
    # What the run cost (Submission's cost figures; a reference row has its size only).
    db_size_bytes: int | None = None
    costs: dict = field(default_factory=dict)  # the board's per-row costs by figure (BOARD_COSTS)


@dataclass(frozen=True)
class BoardPage:
    rows: list[BoardRow]
    count: int
    page: int
    page_size: int
    ranked_count: int
    reference_count: int
    # More rows match than were counted: `count` is a lower bound. A filtered board is
    # counted up to its page's rows and one more (`counted_to_page`: past them, only that a
    # next page follows is known), a whole board the tally does not count (SQLite) up to
    # board/query.py's DEEPEST_ROW.
    count_capped: bool = False
    counted_to_page: bool = False
    # The last page served (DEEPEST_ROW): deeper rows are in the downloads.
    last_page: int | None = None

    @property
    def num_pages(self) -> int:
        """The pages served; of a board counted to its page, those known: up to the next."""
        pages = max(1, -(-self.count // self.page_size))
        return pages if self.last_page is None else min(pages, self.last_page)

    @property
    def pages_known(self) -> bool:
        """Whether the board's number of pages and rows is known (else: that more follow)."""
        return not (self.count_capped and self.counted_to_page)

    @property
    def first_row(self) -> int:
        return (self.page - 1) * self.page_size + 1

    @property
    def last_row(self) -> int:
        return self.first_row + len(self.rows) - 1

    @property
    def served_rows(self) -> int:
        return self.num_pages * self.page_size

    @property
    def deeper_rows(self) -> bool:
        """Rows past the last page served: a board counted to its page knows it on its
        deepest page (the next row counted is past it)."""
        if not self.pages_known:
            return self.count > self.served_rows
        return self.count_capped or self.count > self.served_rows

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.num_pages


def entry_row(track: tracks.Track, values: dict) -> BoardRow:
    ranking = track.ranking
    outcome = outcome_of(values)
    return BoardRow(
        id=values["id"],
        rank=values["rank"],
        entrant=values["public_name"],
        storage_engine=values["storage_engine"],
        hardware=hardware_summary(
            sockets=values["sockets"],
            cpu_model=values["cpu_model"],
            cores=values["cores"],
            memory_gb=values["memory_gb"],
            drives=values["drives"],
            drive_kind=values["drive_kind"],
            raid_level=values["raid_level"],
        ),
        elapsed_seconds=values["elapsed_seconds"],
        seconds_to_target=values["seconds_to_target"],
        estimated=values["estimated"],
        estimate_basis=values["estimate_basis"],
        demo=values["demo"],
        terminal_rate=values["terminal_rate"],
        average_rate=values["average_rate"],
        verified=outcome.verified,
        trust=trust_of(values),
        reference=False,
        ranked=values["rank"] is not None,
        reason=_not_ranked_reason(values, track),
        rows=values["rows"],
        track_figures=values["track_figures"],
        track_metric=values["track_metric"],
        track_class=ranking.label_of(values["track_class"]),
        verification=outcome.state,
        verification_words=outcome.words,
        db_size_bytes=values["db_size_bytes"],
        costs={cost.figure: values[cost.figure] for cost in BOARD_COSTS},
    )


def _not_ranked_reason(values: dict, track: tracks.Track) -> str:
    if values["rank"] is not None:
        return ""
    if not values["eligible"]:
        return values["ineligible_reason"] or "It breaks a ground rule."
    return track.unranked_reason


def reference_row(track: tracks.Track, reference: ReferenceResult) -> BoardRow:
    ranking = track.ranking
    return BoardRow(
        id=reference.id,
        rank=None,
        entrant=reference.label,
        storage_engine=reference.storage_engine,
        hardware=reference.hardware,
        elapsed_seconds=reference.measured_elapsed_seconds,
        seconds_to_target=reference.elapsed_seconds,
        estimated=reference.estimated,
        estimate_basis=reference.note if reference.estimated else "",
        terminal_rate=reference.terminal_rate,
        average_rate=reference.average_rate,
        verified=False,
        reference=True,
        ranked=False,
        reason=reference.note,
        rows=reference.rows,
        size_gib=reference.size_gib,
        source=reference.source,
        track_figures=reference.track_figures,
        track_metric=reference.track_metric,
        track_class=ranking.label_of(reference.track_class),
        db_size_bytes=reference.size_bytes,
    )


def mark_tie_breaks(rows: list[BoardRow]) -> None:
    """Flag neighbouring ranked entries whose times to the target read the same to the second
    (ranks 1 to 4 of a board may all be "10.3 days" and differ by minutes; to the second they
    rarely tie): there the terminal rate is what orders them, and the board says so."""
    ranked = [row for row in rows if row.ranked and row.seconds_to_target is not None]
    for before, after in pairwise(ranked):
        if before.estimated == after.estimated and round(before.seconds_to_target) == round(
            after.seconds_to_target
        ):
            before.tie_break = after.tie_break = True
