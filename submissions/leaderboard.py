"""Reads of the leaderboard (selectors): one place feeds the contest page, the API and the
downloads, so the sort, the filters and the embargo are decided once. Ranks are persisted
(services.contest_rank): a page is a count, a few reference rows and one indexed slice of
entries, whatever the board's size. The ordering rules themselves are in ranking.py."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from zoneinfo import ZoneInfo

from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Lower
from django.utils import timezone

from submissions import tracks
from submissions.engines import normalised_engine
from submissions.live.trust import TRUST_LEVELS, VERIFIED, WITNESSED, trust_level
from submissions.models import (
    Contest,
    DriveKind,
    ReferenceResult,
    Submission,
    hardware_summary,
)
from submissions.ranking import interleave, page_slots, reference_positions
from submissions.selectors import is_organizer
from submissions.soft_cache import cache_get, cache_set

DEFAULT_PAGE_SIZE = 50
PAGE_MAX_PAGE_SIZE = 200
API_MAX_PAGE_SIZE = 1_000
ANONYMOUS = "Anonymous entrant"


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
    # the label of its class ("keys=4, row length=64"); empty on the classic board.
    track_figures: dict = field(default_factory=dict)
    track_metric: float | None = None
    track_class: str = ""
    seconds_to_target: float | None = None  # measured or, when `estimated`, extrapolated
    estimate_basis: str = ""
    demo: str = ""  # "demo" or "synthetic": demo data, not an entrant's result
    # The time to the target reads the same as a ranked neighbour's: the terminal rate decides.
    tie_break: bool = False
    verification: str = ""  # "reproduced", or "shape_only": shown apart from the badge
    # What the run cost (Submission's cost figures; a reference row has its size only).
    db_size_bytes: int | None = None
    write_kb_per_row: float | None = None
    server_cpu_us_per_row: float | None = None
    machine_cpu_us_per_row: float | None = None


@dataclass(frozen=True)
class BoardPage:
    rows: list[BoardRow]
    count: int
    page: int
    page_size: int
    ranked_count: int
    reference_count: int

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.count // self.page_size))

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.num_pages


# Rendered boards are cached under the contest's board_version, which every change moves on in
# the same transaction (services.contest_board_changed): a board is never served stale. What
# time changes (the deadline passing, the results being published) is handled by storing each
# page with the moment it stops being true.
BOARD_CACHE_SECONDS = 600


@dataclass(frozen=True)
class BoardStamp:
    contest_id: int
    version: int


def board_stamp(slug: str) -> BoardStamp | None:
    """The contest's id and board version, or None. Plain SQL: on a cached page this lookup is
    the only database work, and compiling the ORM query cost as much as running it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, board_version FROM submissions_contest WHERE slug = %s", [slug])
        row = cursor.fetchone()
    return BoardStamp(*row) if row else None


def board_cache_key(kind: str, stamp: BoardStamp, request) -> str:
    """What a rendered board depends on besides time: the data's version, who looks
    (organizers see embargoed boards) and the URL."""
    audience = "organizer" if is_organizer(request.user) else "public"
    url = f"{request.get_host()}{request.get_full_path()}"
    digest = hashlib.sha256(url.encode()).hexdigest()[:32]
    return f"board:{kind}:{stamp.contest_id}:{stamp.version}:{audience}:{digest}"


def next_state_change(contest: Contest, now):
    """When the contest next closes or publishes its results, if that is still to come."""
    moments = [m for m in (contest.deadline, contest.results_published_at) if m and m > now]
    return min(moments, default=None)


def cached_board(key: str, stamp: BoardStamp, build, contest: Contest | None = None):
    """`build(contest)`'s value for this key, built at most once per board version and state.
    The contest is read only to build (pass it when the caller has it already)."""
    now = timezone.now()
    hit = cache_get(key)
    if hit is not None and (hit[0] is None or now < hit[0]):
        return hit[1]
    contest = contest or Contest.objects.get(pk=stamp.contest_id)
    value = build(contest)
    cache_set(key, (next_state_change(contest, now), value), BOARD_CACHE_SECONDS)
    return value


def contest_with_references() -> QuerySet[Contest]:
    """Contests whose reference rows the board reads once, however many times it asks."""
    return Contest.objects.prefetch_related("references")


def leaderboard_visible(contest: Contest, user) -> bool:
    return is_organizer(user) or contest.results_are_public()


def embargo_notice(contest: Contest) -> str:
    """What the public reads instead of an embargoed board."""
    if contest.results_published_at is None:
        return "Results are not published yet."
    local = timezone.localtime(contest.results_published_at, ZoneInfo(contest.timezone))
    return f"Results are published on {local:%-d %b %Y, %H:%M} {local.tzname()}."


BOARD_ENTRY_FIELDS = (
    "id", "rank", "public_name", "storage_engine", "sockets", "cpu_model", "cores", "memory_gb",
    "drives", "drive_kind", "raid_level", "seconds_to_target", "estimated", "terminal_rate",
    "average_rate", "verified", "eligible", "ineligible_reason", "rows", "track_figures",
    "track_metric", "track_class", "elapsed_seconds", "estimate_basis", "demo",
    "verification",
    "db_size_bytes", "write_kb_per_row", "server_cpu_us_per_row", "machine_cpu_us_per_row",
    "live_run__witnessed",
)  # fmt: skip


def _board_entries(contest: Contest, query: LeaderboardQuery) -> QuerySet[Submission]:
    entries = Submission.objects.filter(contest=contest)
    if query.engine:
        # The normalised engine: "InnoDB" finds "InnoDB plugin 1.0" too (submissions/engines.py).
        entries = entries.filter(engine__iexact=query.engine)
    if query.drive:
        entries = entries.filter(drive_kind=query.drive)
    if query.verified:
        entries = entries.filter(verified=True)
    if query.trust:
        entries = entries.filter(trust_q(query.trust))
    return entries


def trust_q(level: str) -> Q:
    """Entries of one trust level: a rerun verifies, a sealed stream witnesses."""
    if level == VERIFIED:
        return Q(verified=True)
    if level == WITNESSED:
        return Q(verified=False, live_run__witnessed=True)
    return Q(verified=False) & ~Q(live_run__witnessed=True)


def _public_name() -> Case:
    return Case(When(publish=True, then="entrant_name"), default=Value(ANONYMOUS))


# Sort columns that are expressions rather than stored columns. They are written out in each
# query, never annotated: an aggregate over annotations makes Django rewrite every filter
# (tens of milliseconds per page).
SORT_EXPRESSIONS = {
    "public_name_key": lambda: Lower(_public_name()),
    "engine_key": lambda: Lower("storage_engine"),
}


def _sort_expression(part: SortPart):
    build = SORT_EXPRESSIONS.get(part.entry_field)
    return build() if build else F(part.entry_field)


def _board_references(contest: Contest, query: LeaderboardQuery, references) -> list:
    if query.verified or query.trust:
        return []  # the registry never re-ran nor watched a published result
    return [
        reference
        for reference in references
        if (
            not query.engine
            or normalised_engine(reference.storage_engine).lower() == query.engine.lower()
        )
        and (not query.drive or reference.drive_kind == query.drive)
    ]


def _entry_order(parts: tuple[SortPart, ...]) -> list:
    order = [] if parts[0].entry_field == "rank" else [_unranked_first_key()]
    for part in parts:
        field = _sort_expression(part)
        order.append(field.desc(nulls_last=True) if part.descending else field.asc(nulls_last=True))
    return [*order, F("rank").asc(nulls_last=True), "id"]


def _unranked_first_key():
    # Ranked entries (and the references among them) come first; the rest follow, same order.
    return ExpressionWrapper(Q(rank__isnull=True), output_field=BooleanField()).asc()


def _placement_parts(
    parts: tuple[SortPart, ...], rank_placement: tuple[SortPart, ...] = RANK_PLACEMENT
) -> tuple[SortPart, ...]:
    placed: list[SortPart] = []
    for part in parts:
        if part.entry_field == "rank":
            placed.extend(p.reversed() if part.descending else p for p in rank_placement)
        else:
            placed.append(part)
    # A column already compared decides nothing more further down (keeps the SQL small).
    seen: set[str] = set()
    return tuple(p for p in placed if not (p.entry_field in seen or seen.add(p.entry_field)))


def _entries_before_sql(parts: tuple[SortPart, ...], reference: ReferenceResult):
    """SQL over the `board` columns: a ranked entry comes before this reference row, being
    earlier in the order or tied with it (a tie goes to the entry). Mirrors `_entry_order`,
    missing values last. Column names come from SORTS, values are parameters. `parts` are
    placement parts already (no rank)."""
    sql, params = "TRUE", []  # tied on every part so far: the entry comes first
    for part in reversed(parts):
        column = f'board."{part.entry_field}"'
        value = part.reference_value(reference)
        if value is None:
            sql = f"({column} IS NOT NULL OR ({column} IS NULL AND {sql}))"
        else:
            beats = ">" if part.descending else "<"
            sql = f"({column} {beats} %s OR ({column} = %s AND {sql}))"
            params = [value, value, *params]
    return f"board.rank IS NOT NULL AND {sql}", params


def _board_counts(
    entries: QuerySet[Submission], parts: tuple[SortPart, ...], references: list
) -> tuple[int, int, list[int]]:
    """The entries, the ranked ones and, for each reference row, the entries above it: one
    query. Written as SQL over the ORM's filtered rows because Django's aggregate() takes
    milliseconds to compile a few filtered counts (it re-hashes every nested condition).
    `parts` are placement parts (no rank)."""
    columns = {part.entry_field for part in parts}
    keys = {name: SORT_EXPRESSIONS[name]() for name in columns if name in SORT_EXPRESSIONS}
    board_sql, board_params = (
        entries.order_by().annotate(**keys).values("rank", *sorted(columns)).query.sql_with_params()
    )
    counts, params = ["COUNT(*)", "COUNT(*) FILTER (WHERE board.rank IS NOT NULL)"], []
    for reference in references:
        condition, condition_params = _entries_before_sql(parts, reference)
        counts.append(f"COUNT(*) FILTER (WHERE {condition})")
        params.extend(condition_params)
    with connection.cursor() as cursor:
        cursor.execute(
            # Column names come from SORTS, every value is a parameter.
            f"SELECT {', '.join(counts)} FROM ({board_sql}) AS board",  # noqa: S608  # nosec B608
            [*params, *board_params],
        )
        total, ranked, *before = cursor.fetchone()
    return total, ranked, before


def _sorted_references(parts: tuple[SortPart, ...], references: list) -> list:
    """`parts`: placement parts (no rank)."""
    ordered = list(references)
    for part in reversed(parts):
        # Stable passes from the last part to the first; missing values last in each.
        present = [r for r in ordered if part.reference_value(r) is not None]
        missing = [r for r in ordered if part.reference_value(r) is None]
        present.sort(key=part.reference_value, reverse=part.descending)
        ordered = present + missing
    return ordered


def _entry_row(track: tracks.Track, values: dict) -> BoardRow:
    ranking = track.ranking
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
        verified=values["verified"],
        trust=trust_level(verified=values["verified"], witnessed=values["live_run__witnessed"]),
        reference=False,
        ranked=values["rank"] is not None,
        reason=_not_ranked_reason(values, track),
        rows=values["rows"],
        track_figures=values["track_figures"],
        track_metric=values["track_metric"],
        track_class=ranking.label_of(values["track_class"]) if ranking else "",
        verification=values["verification"],
        db_size_bytes=values["db_size_bytes"],
        write_kb_per_row=values["write_kb_per_row"],
        server_cpu_us_per_row=values["server_cpu_us_per_row"],
        machine_cpu_us_per_row=values["machine_cpu_us_per_row"],
    )


def _not_ranked_reason(values: dict, track: tracks.Track) -> str:
    if values["rank"] is not None:
        return ""
    if not values["eligible"]:
        return values["ineligible_reason"] or "It breaks a ground rule."
    return track.unranked_reason


def _reference_row(track: tracks.Track, reference: ReferenceResult) -> BoardRow:
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
        track_class=ranking.label_of(reference.track_class) if ranking else "",
        db_size_bytes=reference.size_bytes,
    )


@dataclass(frozen=True)
class _Board:
    """A board's order, worked out before any entry row is read."""

    entries: QuerySet[Submission]
    order: list
    references: list[BoardRow]
    positions: list[int]
    entry_count: int
    ranked_count: int
    track: tracks.Track

    @property
    def count(self) -> int:
        return self.entry_count + len(self.references)


def _board(contest: Contest, query: LeaderboardQuery) -> _Board:
    track = contest.track
    order = board_order(track)
    parts = board_sort_parts(query.sort, order)
    placement = _placement_parts(parts, order.rank_placement)
    entries = _board_entries(contest, query)
    references = _sorted_references(
        placement, _board_references(contest, query, contest.references.all())
    )
    total, ranked, before = _board_counts(entries, placement, references)
    # Counts follow the order the references were sorted in; a stable sort keeps it exact
    # where the database's string order and Python's would disagree.
    placed = sorted(zip(before, references, strict=True), key=lambda pair: pair[0])
    return _Board(
        entries=entries.annotate(public_name=_public_name()).values(*BOARD_ENTRY_FIELDS),
        order=_entry_order(parts),
        references=[_reference_row(track, reference) for _, reference in placed],
        positions=reference_positions([before for before, _ in placed]),
        entry_count=total,
        ranked_count=ranked,
        track=track,
    )


def leaderboard_page(*, contest: Contest, query: LeaderboardQuery) -> BoardPage:
    """One page of a contest's board: ranked entries with the reference rows placed among
    them, then the entries that are not ranked. Four queries whatever the board's size."""
    board = _board(contest, query)
    last_page = max(1, -(-board.count // query.page_size))
    page = min(query.page, last_page)
    offset = (page - 1) * query.page_size
    length = max(0, min(query.page_size, board.count - offset))
    slots = page_slots(offset, length, board.positions)
    entries = []
    if slots.entry_limit > 0:
        # The page's ids come from the covering index (sorted there, whatever the sort);
        # only those rows are then read in full.
        end = slots.entry_offset + slots.entry_limit
        ids = board.entries.order_by(*board.order).values("pk")[slots.entry_offset : end]
        entries = board.entries.filter(pk__in=Subquery(ids)).order_by(*board.order)
    rows = list(
        interleave(map(partial(_entry_row, board.track), entries), board.references, slots, length)
    )
    mark_tie_breaks(rows)
    return BoardPage(
        rows=rows,
        count=board.count,
        page=page,
        page_size=query.page_size,
        ranked_count=board.ranked_count,
        reference_count=len(board.references),
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


def leaderboard_rows(*, contest: Contest, query: LeaderboardQuery) -> Iterator[BoardRow]:
    """The whole board in order, read in chunks: for the downloads."""
    board = _board(contest, query)
    entries = board.entries.order_by(*board.order).iterator(chunk_size=2_000)
    slots = page_slots(0, board.count, board.positions)
    return interleave(
        map(partial(_entry_row, board.track), entries), board.references, slots, board.count
    )


def leaderboard_engines(*, contest: Contest) -> list[str]:
    """The storage engines a board can be filtered by: the normalised ones, one spelling each."""
    # A loose index scan (one index probe per distinct engine) instead of DISTINCT, which
    # reads every entry of the contest.
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH RECURSIVE engines(name) AS (
                SELECT MIN(engine) FROM submissions_submission WHERE contest_id = %s
                UNION ALL
                SELECT (SELECT MIN(engine) FROM submissions_submission
                        WHERE contest_id = %s AND engine > engines.name)
                FROM engines WHERE engines.name IS NOT NULL
            )
            SELECT name FROM engines WHERE name IS NOT NULL AND name <> ''
            """,
            [contest.pk, contest.pk],
        )
        names = [name for (name,) in cursor.fetchall()]
    found: dict[str, str] = {}
    references = [normalised_engine(each.storage_engine) for each in contest.references.all()]
    for name in [*names, *references]:
        found.setdefault(name.lower(), name)
    return sorted(found.values(), key=str.lower)
