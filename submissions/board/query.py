"""What the URL asks of a board: its sort (the sorts each track's board offers), filters and
page. The ordering rules themselves are in submissions/measures/ranking.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from submissions import tracks
from submissions.entries.trust import public_level
from submissions.models import DriveKind, ReferenceResult

# The drives filter: a kind, or a volume that is not attached to the machine (a cloud disk,
# a SAN), whatever its kind.
VIRTUAL_DRIVE = "virtual"
DRIVE_FILTERS = (*DriveKind.values, VIRTUAL_DRIVE)
DRIVE_CHOICES = (*DriveKind.choices, (VIRTUAL_DRIVE, "virtual / network volume"))
DEFAULT_PAGE_SIZE = 50
MAX_CORES = 32_767  # the cores column's range (a small integer)
# A page number past this is read as this one: a page past the end shows the last anyway, and a
# page past 2^63 / page_size overflowed PostgreSQL's bigint in the rows a page reads (a 500).
MAX_PAGE = 1_000_000
PAGE_MAX_PAGE_SIZE = 200
# The deepest row a board's pages reach (the page and the API): a page is read with an OFFSET,
# which reads every row before it, and a whole board the tally does not count (SQLite) is
# counted up to it, not over the registry (a filtered page only as far as its own rows and one
# more: board/order.py filtered_counts). The whole board is in its downloads (CSV, JSON) and
# the open dataset.
DEEPEST_ROW = 10_000


def deepest_page(page_size: int) -> int:
    """The last page whose first row is within DEEPEST_ROW."""
    return max(1, -(-DEEPEST_ROW // page_size))


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


# The URL's `sort` values (a board's BoardOrder.sorts); `-name` reverses the first part. Ties
# always fall to the overall rank, then the entry number, so a page boundary never shuffles
# rows. Time to the target: measured times before estimates, whatever their values (an estimate is
# never sorted as if measured).
TO_TARGET = (
    SortPart("estimated", "estimated"),
    SortPart("seconds_to_target", "elapsed_seconds"),
    SortPart("terminal_rate", "terminal_rate", descending=True),
)
# The sorts of the run's figures: a board whose track has no columns of its own shows these.
FIGURE_SORTS: dict[str, tuple[SortPart, ...]] = {
    "elapsed": (
        SortPart("elapsed_seconds", "measured_elapsed_seconds"),
        SortPart("terminal_rate", "terminal_rate", descending=True),
    ),
    "to_target": TO_TARGET,
    "terminal_rate": (SortPart("terminal_rate", "terminal_rate"),),
    "average_rate": (SortPart("average_rate", "average_rate"),),
}
# Every board's.
COMMON_SORTS: dict[str, tuple[SortPart, ...]] = {
    "entrant": (SortPart("public_name_key", "label"),),
    "engine": (SortPart("engine_key", "storage_engine"),),
    "hardware": (SortPart("cores", None), SortPart("memory_gb", None)),
    "verified": (SortPart("verified", None),),
}
# The optional cost columns (?costs=1) of a board of the run's figures. Reference rows have a
# size (the 2008 result's 166 GiB) but no per-row costs.
COST_SORT_PARTS: dict[str, tuple[SortPart, ...]] = {
    "size": (SortPart("db_size_bytes", "size_bytes"),),
    "write_kb": (SortPart("write_kb_per_row", None),),
    "cpu": (SortPart("server_cpu_us_per_row", None),),
}
COST_SORTS = tuple(COST_SORT_PARTS)
DEFAULT_SORT = "rank"
# The reference row's attribute holding an entry column a ranking compares, where the names
# differ (a published result's elapsed_seconds is its time to the target).
REFERENCE_ATTRIBUTES = {"seconds_to_target": "elapsed_seconds"}


@dataclass(frozen=True)
class BoardOrder:
    """The sorts a board offers and where its reference rows go in rank order."""

    sorts: Mapping[str, tuple[SortPart, ...]]
    rank_placement: tuple[SortPart, ...]


def board_order(track: tracks.Track) -> BoardOrder:
    """A board sorts by rank (the track's ranking: within its class, by what the ranking
    compares), by its figures' columns and by the columns every board has. A reference row
    has no rank: in rank order it sits where the ranking's values would rank it."""
    ranking = track.ranking
    by_class = (SortPart("track_class", "track_class"),) if ranking.class_key else ()
    ranked_on = tuple(
        SortPart(key.column, REFERENCE_ATTRIBUTES.get(key.column, key.column), key.descending)
        for key in ranking.order
    )
    by_rank = (*by_class, SortPart("rank", None), *ranked_on)
    if track.shows_run_figures:
        sorts = {"rank": by_rank, **FIGURE_SORTS, **COMMON_SORTS, **COST_SORT_PARTS}
    else:
        metric = {"metric": (SortPart("track_metric", "track_metric"),)}
        sorts = {"rank": by_rank, **metric, **COMMON_SORTS}
    if by_class:
        sorts["class"] = by_rank
    return BoardOrder(sorts, (*by_class, *ranked_on))


DEFAULT_ORDER = board_order(tracks.DEFAULT_TRACK)
SORTS = DEFAULT_ORDER.sorts
RANK_PLACEMENT = DEFAULT_ORDER.rank_placement


def board_sort_parts(sort: str, order: BoardOrder = DEFAULT_ORDER) -> tuple[SortPart, ...]:
    descending = sort.startswith("-")
    first, *rest = order.sorts[sort.removeprefix("-")]
    return (first.reversed() if descending else first, *rest)


@dataclass(frozen=True)
class LeaderboardQuery:
    """What the URL asks of a board: `?sort=-terminal_rate&engine=InnoDB&drive=ssd&verified=1
    &cpu=AMD+EPYC&cores=8&memory=16&page=2&page_size=100`. Unknown values fall back to the
    defaults rather than failing."""

    sort: str = DEFAULT_SORT
    engine: str = ""
    drive: str = ""  # a DriveKind, or VIRTUAL_DRIVE
    cpu: str = ""  # a CPU model, its variants too (setup/cpus.py)
    cores: int | None = None
    memory_gb: float | None = None
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
        order: BoardOrder = DEFAULT_ORDER,
    ) -> LeaderboardQuery:
        sort = params.get("sort", DEFAULT_SORT)
        drive = params.get("drive", "")
        return cls(
            sort=sort if sort.removeprefix("-") in order.sorts else DEFAULT_SORT,
            engine=params.get("engine", "").strip()[:100],
            drive=drive if drive in DRIVE_FILTERS else "",
            # No NUL (PostgreSQL refuses it in a string) and no count past the column's range.
            cpu=params.get("cpu", "").replace("\x00", "").strip()[:200],
            cores=_cores(params.get("cores")),
            memory_gb=_positive_float(params.get("memory")),
            verified=params.get("verified", "") in ("1", "true", "on", "yes"),
            trust=public_level(params.get("trust", "")),
            page=min(_positive_int(params.get("page"), 1), MAX_PAGE),
            page_size=min(_positive_int(params.get("page_size"), DEFAULT_PAGE_SIZE), max_page_size),
            # Sorting by a cost shows the costs.
            costs=params.get("costs", "") in ("1", "true", "on", "yes")
            or sort.removeprefix("-") in COST_SORTS,
        )

    @property
    def filtered(self) -> bool:
        return bool(self.engine or self.drive or self.verified or self.trust or self.hardware)

    @property
    def hardware(self) -> tuple:
        """The like-hardware filters (CPU model, cores, memory), () when none is set: no
        reference row states them apart from its hardware text."""
        if not (self.cpu or self.cores or self.memory_gb):
            return ()
        return (self.cpu.lower(), self.cores, self.memory_gb)


def _cores(text: str | None) -> int | None:
    cores = _positive_int(text, 0)
    return cores if 0 < cores <= MAX_CORES else None


def _positive_float(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if 0 < value < 1e9 else None


def _positive_int(text: str | None, default: int) -> int:
    try:
        value = int(text or "")
    except ValueError:
        return default
    return value if value > 0 else default
