"""Finding entries: the search box over the entries a visitor may see, and a page per engine and
per CPU model with its results across contests and its best terminal rate over time.

Each costs its own page, not the registry (issue 44): the entries a page at a time, newest
first, read from indexes (migration 0028), with no count of them all (a page knows only
whether another follows); the history chart the system's latest HISTORY_POINTS results and the
best before them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from submissions.board.query import deepest_page
from submissions.caches.compiled import (
    PLACEHOLDER_ID,
    compiled_values,
    for_values,
    read_now,
    reading_ahead,
    rows_of,
    rows_prepared,
    values_at_once,
)
from submissions.contests.ranks import rank_checks, ranks_known
from submissions.entries import selectors
from submissions.entries.newest import (
    PLACEHOLDER_NOW,
    instances_with,
    viewer_kind,
    visible_placed,
)
from submissions.measures.history import Result, best_over_time
from submissions.measures.numbers import rate
from submissions.models import Contest, Submission
from submissions.setup.cpus import cpu_model_name, cpu_variants_q

# A query longer than this is not a search a person typed.
MAX_QUERY_CHARS = 200
# Entries a page of the search or of a system shows.
PAGE_SIZE = 50
# The results a system's chart plots: its latest ones, with the best before them.
HISTORY_POINTS = 200
# Submission.public_name of an entrant who did not publish the name.
ANONYMOUS = "Anonymous entrant"


@dataclass(frozen=True)
class EntriesPage:
    """One page of a list read newest first: its entries (ranks known), its number and whether
    a page follows (read as one row more than the page, never a count)."""

    entries: list[Submission]
    number: int
    has_next: bool

    @property
    def first_position(self) -> int:
        return (self.number - 1) * PAGE_SIZE + 1

    @property
    def last_position(self) -> int:
        return self.first_position + len(self.entries) - 1


def page_number(request: HttpRequest) -> int:
    """The page asked for: 1 when it is not a number; a 404 past the deepest page. An OFFSET
    reads the entries before the page, so pages go to the boards' deepest row
    (board/query.py DEEPEST_ROW), not a million entries down."""
    try:
        number = int(request.GET.get("page", "1"))
    except ValueError:
        return 1
    deepest = deepest_page(PAGE_SIZE)
    if number > deepest:
        raise Http404(
            f"Pages go to {deepest:,} at most (the first {deepest * PAGE_SIZE:,} entries): the "
            "open dataset (/open-data/) holds every one."
        )
    return max(1, number)


# What a page of entries found shows (registry's `found_rows`) and ranks them by: a row loads
# these alone, not the entry's forty columns.
FOUND_FIELDS = (
    "contest__slug", "contest__title", "contest__workload", "entrant_name", "publish",
    "terminal_rate", "engine", "storage_engine", "cpu_model", "submitted_at", "eligible",
    "estimated", "seconds_to_target", "track_metric", "track_class",
)  # fmt: skip


def entries_page(entries: QuerySet[Submission], number: int) -> EntriesPage:
    return ranked(page_rows(entries, number), number)


def page_rows(entries: QuerySet[Submission], number: int) -> list[Submission]:
    """The page's entries and one more (whether a page follows), ranks not read yet."""
    offset = (number - 1) * PAGE_SIZE
    shown = entries.select_related("contest").only(*FOUND_FIELDS)
    return list(shown[offset : offset + PAGE_SIZE + 1])


def ranked(rows: list[Submission], number: int) -> EntriesPage:
    return EntriesPage(ranks_known(rows[:PAGE_SIZE]), number, len(rows) > PAGE_SIZE)


def search(request: HttpRequest) -> HttpResponse:
    words = request.GET.get("q", "").strip()[:MAX_QUERY_CHARS]
    page = None
    if words:
        entries = selectors.entries_matching(words=words, user=request.user)
        page = entries_page(entries, page_number(request))
    context = {"words": words, "page": page, "entries": page.entries if page else []}
    return render(request, "submissions/search.html", context)


def engine_page(request: HttpRequest, engine: str) -> HttpResponse:
    entries = selectors.entries_of_system(user=request.user, engine=engine)
    return _system_page(
        request, "engine", entries, lambda entry: entry.engine, system=("engine", engine)
    )


def cpu_page(request: HttpRequest, cpu_model: str) -> HttpResponse:
    entries = selectors.entries_of_system(user=request.user, cpu_model=cpu_model)
    # One machine, one page: the model's name, and the spellings its entries gave.
    return _system_page(
        request,
        "CPU model",
        entries,
        lambda entry: cpu_model_name(cpu_model),
        spellings=True,
        system=("cpu", cpu_model_name(cpu_model)),
    )


def _label(entry_id: int, name: str, contest: str) -> str:
    return f"#{entry_id} {name}, {contest}"


HISTORY_FIELDS = (
    "pk", "submitted_at", "terminal_rate", "publish", "entrant_name", "contest__title",
)  # fmt: skip


def _latest(entries: QuerySet[Submission]) -> QuerySet:
    """The latest HISTORY_POINTS results the history chart plots."""
    rated = entries.filter(terminal_rate__isnull=False)
    return rated.values_list(*HISTORY_FIELDS)[:HISTORY_POINTS]


def _history(earlier_than, latest: list) -> tuple[list[Result], list[Result]]:
    """(the plotted results, the best over time among them): the `latest` HISTORY_POINTS
    results and the best result before the oldest of them, so that the line is the best as it
    stood over the plotted span (a result before it that was beaten before it is left out).
    The best before is read after them, by the oldest's time as a value (a subquery in its
    place would leave the planner to guess how many entries are older)."""
    earlier = []
    if len(latest) == HISTORY_POINTS:
        earlier = [tuple(row) for row in earlier_than(latest[-1][1])]
    results = [
        Result(when.isoformat(), rate, _label(pk, name if publish else ANONYMOUS, title))
        for pk, when, rate, publish, name, title in reversed(earlier + latest)
    ]
    return results, best_over_time(results)


def _contests_holding(entries: QuerySet[Submission]) -> QuerySet:
    """The titles of the contests holding some of `entries`: one look-up per contest of an
    index on the system's name and the contest (migration 0028). A scalar subquery, which
    PostgreSQL runs per contest, where an EXISTS would be planned as a join over them all."""
    first = entries.filter(contest=OuterRef("pk")).order_by().values("pk")[:1]
    holding = Contest.objects.annotate(held=Subquery(first)).filter(held__isnull=False)
    return holding.values_list("title")


# The numbered pages whose statements are kept (each page's OFFSET is in its statement);
# deeper ones are compiled at each request.
KEPT_PAGES = 10
# Where a system's name goes in its page's kept statements (no engine or CPU model has it) and
# the moment the chart's best before its latest results is read before.
NAME_PLACE = "Zq9PlaceOfASystemName"
EARLIER_PLACE = PLACEHOLDER_NOW + timedelta(days=1)


def _system_entries(viewer: str, system: str) -> QuerySet[Submission]:
    """`selectors.entries_of_system` for a viewer of this kind, the name, the moment and the
    entrant in their placeholders."""
    entries = visible_placed(Submission.objects.select_related("contest"), viewer)
    entries = entries.defer(*selectors.LIST_DEFERRED)
    if system == "engine":
        entries = entries.filter(engine__iexact=NAME_PLACE)
    else:
        entries = entries.filter(cpu_variants_q(NAME_PLACE))
    return entries.order_by("-submitted_at", "-pk")


ROW_ENTRY = ("id", "contest_id", *(name for name in FOUND_FIELDS if "__" not in name))
ROW_CONTEST = ("id", *(name.removeprefix("contest__") for name in FOUND_FIELDS if "__" in name))


def kept_system_reads(user, system: str, name: str, number: int):
    """`_read_at_each_request`'s reads on PostgreSQL, by statements compiled once per process
    (who sees what, the system's kind and the page's number in their keys; the name, the
    moment and the entrant in their placeholders): the page's rows in one round trip, the
    other reads with the ranks' checks in a second, the chart's best before in a third, as
    before, each prepared. The ORM compiled these five statements at each request."""
    viewer = viewer_kind(user)
    offset = (number - 1) * PAGE_SIZE
    entry_attnames = [f.attname for f in Submission._meta.concrete_fields if f.attname in ROW_ENTRY]
    names = [*entry_attnames, *(f"contest__{column}" for column in ROW_CONTEST)]
    rows_read = compiled_values(
        ("system-rows", viewer, system, number),
        lambda: _system_entries(viewer, system).values(*names)[offset : offset + PAGE_SIZE + 1],
    )
    others = [
        compiled_values(
            ("system-read", viewer, system, number, place),
            lambda place=place: _page_reads(_system_entries(viewer, system), number)[place],
        )
        for place in range(4 if number > 1 else 3)
    ]
    earlier_read = compiled_values(
        ("system-earlier", viewer, system),
        lambda: _earlier(_system_entries(viewer, system), EARLIER_PLACE),
    )
    values = {PLACEHOLDER_NOW: timezone.now(), PLACEHOLDER_ID: getattr(user, "pk", None)}

    def placed(statement, more=None):
        return _named(for_values(statement, {**values, **(more or {})}), name)

    rows = instances_with(
        rows_prepared(placed(rows_read)),
        rows_read.using,
        entry_attnames,
        {"contest": list(ROW_CONTEST)},
        ("contest",),
    )
    if not rows:
        return rows, None, None
    others = [placed(statement) for statement in others]
    with reading_ahead([]):
        read_now([*others, *rank_checks(rows[:PAGE_SIZE])])
        reads = [rows_of(statement) for statement in others]
        page = ranked(rows, number)
    return (
        page,
        reads,
        lambda before: rows_prepared(placed(earlier_read, {EARLIER_PLACE: before})),
    )


def _named(statement, name: str):
    """`statement` with the system's name in its places: as it is where compared whole, escaped
    where a LIKE pattern starts with it (a CPU model's spellings)."""
    like = connection.ops.prep_for_like_query(name)

    def put(param):
        if param == NAME_PLACE:
            return name
        if type(param) is str and param.startswith(NAME_PLACE):
            return like + param[len(NAME_PLACE) :]
        return param

    return dataclasses.replace(statement, params=tuple(put(param) for param in statement.params))


def _variants(entries: list[Submission], name: str) -> list[str]:
    """The spellings of a CPU model among a page's entries, when they are more than its name
    (read from the page shown, so the page costs its page)."""
    variants = sorted({entry.cpu_model for entry in entries}, key=str.lower)
    return variants if len(variants) > 1 or (variants and variants[0] != name) else []


def _page_reads(entries: QuerySet[Submission], number: int) -> list[QuerySet]:
    """What the page shows besides its entries: the oldest entry's day, the contests holding
    them, the chart's latest results, and (past the first page, whose first entry is the
    newest) the newest entry's day."""
    oldest = entries.order_by("submitted_at", "pk").values_list("submitted_at")[:1]
    reads = [oldest, _contests_holding(entries), _latest(entries)]
    if number > 1:
        reads.append(entries.values_list("submitted_at")[:1])
    return reads


def _earlier(entries: QuerySet[Submission], before) -> QuerySet:
    """The best rated result before `before`, as the history chart's line starts from it."""
    rated = entries.filter(terminal_rate__isnull=False, submitted_at__lt=before)
    return rated.order_by("-terminal_rate", "pk").values_list(*HISTORY_FIELDS)[:1]


def _read_at_each_request(entries: QuerySet[Submission], number: int):
    """(the page's rows, its other reads, a reader of the chart's best before) compiled at
    each request: SQLite's, and a page past KEPT_PAGES."""
    rows = page_rows(entries, number)
    if not rows:
        return rows, None, None
    # The reads besides the entries in one round trip (values_at_once), with the check of the
    # kept ranks the entries' ranks are read from (rank_checks).
    with reading_ahead([]):
        reads = values_at_once(_page_reads(entries, number), rank_checks(rows[:PAGE_SIZE]))
        page = ranked(rows, number)
    return page, reads, lambda before: list(_earlier(entries, before))


def _system_page(
    request: HttpRequest,
    kind: str,
    entries: QuerySet[Submission],
    name_of,
    *,
    spellings: bool = False,
    system: tuple[str, str] = ("", ""),
):
    number = page_number(request)
    if connection.vendor == "postgresql" and number <= KEPT_PAGES:
        page, reads, earlier = kept_system_reads(request.user, *system, number)
    else:
        page, reads, earlier = _read_at_each_request(entries, number)
    if not page:
        raise Http404(f"No entry of this {kind} on this page.")
    oldest, contests, latest, *newest = reads
    newest = newest[0][0][0] if newest else page.entries[0].submitted_at
    oldest = oldest[0][0]
    contests = sorted(title for (title,) in contests)
    results, best = _history(earlier, [tuple(row) for row in latest])
    context_name = name_of(page.entries[0])
    context = {
        "name": context_name,
        "kind": kind,
        "variants": _variants(page.entries, context_name) if spellings else [],
        "page": page,
        "entries": page.entries,
        "contests": contests,
        "best": best[-1] if best else None,
        "best_rate": rate(best[-1].rate) if best else None,
        "first": oldest,
        "last": newest,
        "history": {
            "entries": [vars(result) for result in results],
            "best": [vars(result) for result in best],
            "until": newest.isoformat(),
        },
    }
    return render(request, "submissions/system.html", context)
