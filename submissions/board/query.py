"""What the URL asks of a board: its sort (the sorts each track's board offers), filters and
page. The ordering rules themselves are in submissions/ranking.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from submissions import tracks
from submissions.live.trust import TRUST_LEVELS
from submissions.models import DriveKind, ReferenceResult

DEFAULT_PAGE_SIZE = 50
PAGE_MAX_PAGE_SIZE = 200
API_MAX_PAGE_SIZE = 1_000


@dataclass(frozen=True)
class SortPart:
    """One component of a board order: the entries' column (an expression name on the
    queryset), the reference rows' attribute (None: references have no such value) and the
    direction. Missing values go last in both directions."""

    entry_field: str
    reference_attribute: str | None
    descending: bool = False

    def reversed(self) -> SortPart:
        return SortPart(self.entry_field, self.reference_attribute, not self.descending)

    def reference_value(self, reference: ReferenceResult):
        if self.reference_attribute is None:
            return None
        value = getattr(reference, self.reference_attribute)
        return value.lower() if isinstance(value, str) else value


# The URL's `sort` values; `-name` reverses the first part. Ties always fall to the overall
# rank, then the entry number, so a page boundary never shuffles rows.
# Time to the target: measured times before estimates, whatever their values (an estimate is
# never sorted as if measured).
TO_TARGET = (
    SortPart("estimated", "estimated"),
    SortPart("seconds_to_target", "elapsed_seconds"),
    SortPart("terminal_rate", "terminal_rate", descending=True),
)
SORTS: dict[str, tuple[SortPart, ...]] = {
    "rank": (SortPart("rank", None), *TO_TARGET),
    "elapsed": (
        SortPart("elapsed_seconds", "measured_elapsed_seconds"),
        SortPart("terminal_rate", "terminal_rate", descending=True),
    ),
    "to_target": TO_TARGET,
    "terminal_rate": (SortPart("terminal_rate", "terminal_rate"),),
    "average_rate": (SortPart("average_rate", "average_rate"),),
    "entrant": (SortPart("public_name_key", "label"),),
    "engine": (SortPart("engine_key", "storage_engine"),),
    "hardware": (SortPart("cores", None), SortPart("memory_gb", None)),
    "verified": (SortPart("verified", None),),
    # The optional cost columns (?costs=1). Reference rows have a size (the 2008 result's
    # 166 GiB) but no per-row costs.
    "size": (SortPart("db_size_bytes", "size_bytes"),),
    "write_kb": (SortPart("write_kb_per_row", None),),
    "cpu": (SortPart("server_cpu_us_per_row", None),),
}
COST_SORTS = ("size", "write_kb", "cpu")
DEFAULT_SORT = "rank"
# A reference row has no rank: on the classic board it sits where its time, then its terminal
# rate, would rank it.
RANK_PLACEMENT = TO_TARGET


@dataclass(frozen=True)
class BoardOrder:
    """The sorts a board offers and where its reference rows go in rank order."""

    sorts: Mapping[str, tuple[SortPart, ...]]
    rank_placement: tuple[SortPart, ...]


CLASSIC_ORDER = BoardOrder(SORTS, RANK_PLACEMENT)


def board_order(track: tracks.Track) -> BoardOrder:
    """A track ranks by its metric (within its class): its board sorts by rank, by the metric,
    by class, and by the columns every board has."""
    ranking = track.ranking
    if ranking is None:
        return CLASSIC_ORDER
    metric = SortPart("track_metric", "track_metric", descending=ranking.descending)
    by_class = (SortPart("track_class", "track_class"),) if ranking.class_key else ()
    sorts = {
        "rank": (*by_class, SortPart("rank", None), metric),
        "metric": (SortPart("track_metric", "track_metric"),),
        **{name: SORTS[name] for name in ("entrant", "engine", "hardware", "verified")},
    }
    if by_class:
        sorts["class"] = (*by_class, SortPart("rank", None), metric)
    return BoardOrder(sorts, (*by_class, metric))


def board_sort_parts(sort: str, order: BoardOrder = CLASSIC_ORDER) -> tuple[SortPart, ...]:
    descending = sort.startswith("-")
    first, *rest = order.sorts[sort.removeprefix("-")]
    return (first.reversed() if descending else first, *rest)


@dataclass(frozen=True)
class LeaderboardQuery:
    """What the URL asks of a board: `?sort=-terminal_rate&engine=InnoDB&drive=ssd&verified=1
    &page=2&page_size=100`. Unknown values fall back to the defaults rather than failing."""

    sort: str = DEFAULT_SORT
    engine: str = ""
    drive: str = ""
    verified: bool = False
    trust: str = ""  # one of TRUST_LEVELS: only entries the registry vouches for that far
    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    costs: bool = False  # the optional cost columns (size, KiB written and CPU per row)

    @classmethod
    def from_params(
        cls,
        params,
        *,
        max_page_size: int = PAGE_MAX_PAGE_SIZE,
        order: BoardOrder = CLASSIC_ORDER,
    ) -> LeaderboardQuery:
        sort = params.get("sort", DEFAULT_SORT)
        drive = params.get("drive", "")
        return cls(
            sort=sort if sort.removeprefix("-") in order.sorts else DEFAULT_SORT,
            engine=params.get("engine", "").strip()[:100],
            drive=drive if drive in DriveKind.values else "",
            verified=params.get("verified", "") in ("1", "true", "on", "yes"),
            trust=params.get("trust", "") if params.get("trust", "") in TRUST_LEVELS else "",
            page=_positive_int(params.get("page"), 1),
            page_size=min(_positive_int(params.get("page_size"), DEFAULT_PAGE_SIZE), max_page_size),
            # Sorting by a cost shows the costs.
            costs=params.get("costs", "") in ("1", "true", "on", "yes")
            or sort.removeprefix("-") in COST_SORTS,
        )

    @property
    def filtered(self) -> bool:
        return bool(self.engine or self.drive or self.verified or self.trust)


def _positive_int(text: str | None, default: int) -> int:
    try:
        value = int(text or "")
    except ValueError:
        return default
    return value if value > 0 else default
