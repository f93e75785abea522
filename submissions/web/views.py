import hashlib
from dataclasses import dataclass, replace

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from submissions import tracks
from submissions.board import summary
from submissions.board.cache import (
    EntryStamp,
    board_cache_key,
    board_stamp,
    cached_board,
    contest_read,
    entry_stamp,
    kept_for,
    next_state_change,
)
from submissions.board.query import DRIVE_CHOICES, LeaderboardQuery, board_order
from submissions.board.reads import (
    board_hardware,
    board_references,
    engines_key,
    leaderboard_engines,
    leaderboard_page,
    leaderboard_rows,
    machines_key,
    references_key,
)
from submissions.board.rows import BoardRow
from submissions.board.visibility import (
    contest_with_references,
    embargo_notice,
    leaderboard_visible,
    require_visible_board,
)
from submissions.caches.compiled import (
    compiled_instances,
    compiled_values,
    instances_of,
    read_now,
    reading_ahead,
    values_of,
)
from submissions.caches.soft_cache import cache_get, cache_set
from submissions.contests import reference_rows, rule_versions
from submissions.contests.ranks import (
    contest_leader_kept,
    entry_placement,
    ranks_known,
)
from submissions.contests.rule_changes import rule_set_of
from submissions.contests.rule_versions import rule_version_latest_key
from submissions.contests.rules import RuleSet
from submissions.entries import edits, refusals, selectors, services, tokens
from submissions.entries.kept_logs import KeptLog, kept_log_discard, kept_log_open, log_keep
from submissions.entries.log_machine import entry_machine_facts
from submissions.entries.settings_panel import settings_counted, settings_panel
from submissions.entries.trust import TRUST_LEVELS, TRUST_SENTENCES, entry_trust
from submissions.measures import numbers
from submissions.measures.costs import PER_ROW_COSTS, cost_tiles
from submissions.models import (
    ChangeStatus,
    Contest,
    PendingChange,
    RuleVersion,
    SeedReproduction,
    Submission,
)
from submissions.tracks.reproduced import ENGINE_NAMES
from submissions.web import exports
from submissions.web.forms import DeclarationForm, SignupForm, SubmissionForm
from submissions.web.throttle import upload_refusal, upload_slot, upload_stored, upload_try
from submissions.wings import (
    RULE_SENTENCES,
    contest_panels_context,
    contest_panels_reads,
    entry_panels_context,
)


def _posted(request: HttpRequest):
    """The form data of a POST, even an empty one: `request.POST or None` would show a POST
    with no fields (a JSON body, say) the blank form again, without a word."""
    return request.POST if request.method == "POST" else None


def home(request: HttpRequest) -> HttpResponse:
    contests, seeds = _home_reads()
    if not _plain_visit(request):
        context = {**home_figures(contests), "seeds_reproduced": seeds}
        return render(request, "submissions/home.html", context)
    # An anonymous visitor's page is the same for every one: rendered once per set of board
    # versions (and seeds' flag and address), kept until a contest next closes or publishes.
    versions = ",".join(f"{contest.pk}.{contest.board_version}" for contest in contests)
    place = f"{versions}|{seeds}|{request.build_absolute_uri()}"
    key = "home-page:" + hashlib.sha256(place.encode()).hexdigest()[:32]
    now = timezone.now()
    hit = cache_get(key)
    if hit is not None and (hit[0] is None or now < hit[0]):
        return HttpResponse(hit[1])
    context = {**home_figures(contests), "seeds_reproduced": seeds}
    page = render(request, "submissions/home.html", context).content
    changes = [m for c in contests if (m := next_state_change(c, now))]
    cache_set(key, (min(changes, default=None), page), HOME_CACHE_SECONDS)
    return HttpResponse(page)


HOME_CACHE_SECONDS = 600


def _home_reads() -> tuple[list[Contest], bool]:
    """The contests (their board versions key the page) and whether a seeds' run was
    reproduced (read apart from the cached figures: a seeds' run moves no board version): two
    statements compiled once per process, sent at once (one round trip on PostgreSQL)."""
    contests = compiled_instances(("home-contests",), lambda: Contest.objects.all())
    seeds = compiled_values(
        ("home-seeds",), lambda: SeedReproduction.objects.order_by().values("pk")[:1]
    )
    with reading_ahead([contests.key, seeds.key]):
        return instances_of(contests), bool(values_of(seeds))


def home_figures(contests: list[Contest]) -> dict:
    """The home page's figures, built once per set of board versions (every change a board
    shows moves its contest's version) and kept until a contest next closes or publishes."""
    versions = ",".join(f"{contest.pk}.{contest.board_version}" for contest in contests)
    key = "home:" + hashlib.sha256(versions.encode()).hexdigest()[:32]
    now = timezone.now()
    hit = cache_get(key)
    if hit is not None and (hit[0] is None or now < hit[0]):
        return hit[1]
    figures = _home_figures(contests, now)
    changes = [m for c in contests if (m := next_state_change(c, now))]
    cache_set(key, (min(changes, default=None), figures), HOME_CACHE_SECONDS)
    return figures


def _home_figures(contests: list[Contest], now) -> dict:
    classic = [c.slug for c in contests if c.track.shows_run_figures and c.results_are_public()]
    # What the last build of these contests' figures read (each contest's leader and best
    # verified entry, the latest results, the chart's bests: statements compiled once per
    # process) is sent at once, one round trip on PostgreSQL (caches/compiled.py).
    with reading_ahead([], learn=("home", tuple((c.pk, c.workload) for c in contests))):
        return {
            "summaries": [summary.contest_summary(contest) for contest in contests],
            "latest": summary.latest_results(contests),
            "engine_chart": engine_chart(classic, now),
            "chart_contests": [c for c in contests if c.slug in classic],
        }


def engine_chart(slugs: list[str], now) -> list[dict]:
    """The chart's lines, from the bests kept per contest, engine and month
    (board/engine_bests.py): a few rows per engine and month, built with the home page's
    figures once per set of board versions."""
    return [
        {"name": line.engine, "months": [m.isoformat() for m in line.months], "rates": line.rates}
        for line in summary.engine_bests(slugs, now.date())
    ]


def seeds_reproduced(request: HttpRequest) -> HttpResponse:
    """The seeds' table: each comparison's published ratio beside those measured here by
    `manage.py reproduce_seeds`, with the runs' curves."""
    table = reference_rows.seeds_table()
    rows = [
        {
            "comparison": row.comparison,
            "published": [
                (engine, _seed_figure(value, row.comparison.metric))
                for engine, value in row.comparison.published.items()
            ],
            "published_ratio": row.published_ratio,
            "measured": [_seeds_column(row.comparison, column) for column in row.measured],
        }
        for row in table
    ]
    curves = {
        row.comparison.key: [
            {
                "name": f"{ENGINE_NAMES.get(run.engine, run.engine)}, {column.host}, "
                f"1/{column.scale:,}",
                "rows": [point[0] for point in run.curve],
                "rates": [point[1] for point in run.curve],
            }
            for column in row.measured
            for run in column.runs
            if run.curve
        ]
        for row in table
    }
    return render(request, "submissions/seeds_reproduced.html", {"rows": rows, "curves": curves})


def _seed_figure(value: float | None, metric: str) -> str:
    if value is None:
        return "—"
    # Query times run from ms at a small scale to the briefs' seconds: three significant figures.
    return f"{value:.3g} s" if metric == "query_seconds" else f"{numbers.rate(value)} rows/s"


def _seeds_column(comparison, column) -> dict:
    return {
        "host": column.host,
        "scale": column.scale,
        "ratio": column.ratio,
        "runs": [
            {
                "engine": ENGINE_NAMES.get(run.engine, run.engine),
                "figure": _seed_figure(getattr(run, comparison.metric), comparison.metric),
                "rows": run.rows,
                "failed": run.status != "completed",
                "message": run.message,
                "cache": run.cache,
                "memory_limit": run.memory_limit,
                "load": run.load,
                "measured_at": run.measured_at,
            }
            for run in column.runs
        ],
    }


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. You can submit a run now.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


def contest_detail(request: HttpRequest, slug: str) -> HttpResponse:
    stamp = board_stamp(slug)
    if stamp is None:
        raise Http404("No such contest.")
    if _plain_visit(request):
        # An anonymous visitor with no message pending sees what every other one sees.
        key = board_cache_key("visitor", stamp, request)
        page = cached_board(
            key,
            stamp,
            lambda contest: _contest_page(request, contest, stamp).content,
            immutable=True,
            reads=contest_page_reads,
        )
        return HttpResponse(page)
    return _contest_page(request, contest_read(stamp.contest_id), stamp)


def contest_page_reads(contest_id: int) -> list:
    """What building a contest page reads that depends on the contest alone: read ahead at
    once (caches/compiled.py)."""
    return [
        references_key(contest_id),
        rule_version_latest_key(contest_id),
        engines_key(contest_id),
        machines_key(contest_id),
        *contest_panels_reads(contest_id),
    ]


def _plain_visit(request: HttpRequest) -> bool:
    return not request.user.is_authenticated and "messages" not in request.COOKIES


def _contest_page(request: HttpRequest, contest: Contest, stamp) -> HttpResponse:
    # The page's body (rules and board) is the same for every visitor of one audience: render
    # it once per board version. The frame around it (who is logged in) is rendered per request.
    body = cached_board(
        board_cache_key("page", stamp, request),
        stamp,
        lambda contest: render_to_string(
            "submissions/contest_body.html", _contest_context(request, contest), request=request
        ),
        contest,
        immutable=True,
        reads=contest_page_reads,
    )
    # The re-check's progress is the organizers' and moves without the board changing: it is
    # rendered per request, outside the cached body.
    recheck = (
        rule_versions.recheck_active(contest) if selectors.is_organizer(request.user) else None
    )
    return render(
        request,
        "submissions/contest_detail.html",
        {
            "contest": contest,
            "body": body,
            "recheck": recheck,
            **contest_panels_context(contest, request.user),
        },
    )


def _board_query(request: HttpRequest, contest: Contest) -> LeaderboardQuery:
    order = board_order(contest.track)
    return LeaderboardQuery.from_params(request.GET, order=order)


def _contest_context(request: HttpRequest, contest: Contest) -> dict:
    board_references(contest)
    rule_set = rule_versions.contest_rule_set(contest)
    track = contest.track
    rules = [(rule.id, rule.describe(rule_set)) for rule in track.rule_list()]
    context = {
        "contest": contest,
        "rules": rules,
        "track": track,
        "rules_version": rule_versions.rule_version_latest(contest),
    }
    if leaderboard_visible(contest, request.user):
        query = _board_query(request, contest)
        board = leaderboard_page(contest=contest, query=query)
        columns = board_columns(request, query, track, rule_set)
        rows = [in_contest_scale(row, contest) for row in board.rows]
        context.update(
            board=board,
            query=query,
            best=board_best(contest, query, rows),
            ranked_rows=[row for row in rows if row.ranked or row.reference],
            unranked_rows=[row for row in rows if not (row.ranked or row.reference)],
            columns=columns,
            costs_toggle=_with(request, costs="" if query.costs else "1")
            if track.shows_run_figures
            else "",
            unranked_columns=unranked_columns(track, rule_set),
            ranked_by=track.ranked_by,
            engines=leaderboard_engines(contest=contest),
            hardware=board_hardware(contest=contest),
            drive_kinds=DRIVE_CHOICES,
            trust_levels=TRUST_LEVELS,
            embargo_banner="" if contest.results_are_public() else embargo_notice(contest),
            export_query=_without(request, "page"),
        )
    else:
        context["embargo_notice"] = embargo_notice(contest)
    return context


def in_contest_scale(row: BoardRow, contest: Contest) -> BoardRow:
    """A reference row as this board can compare it: a published time to another count of rows
    (the 2008 result's 1,000,000,000 rows on a 1,000,000-row board) is not shown as this
    contest's time to its target; its rates stay, the row's note says at what scale."""
    if not row.reference or not contest.track.has_target or not row.rows:
        return row
    if row.rows == contest.target_rows:
        return row
    note = f"Published for {row.rows:,} rows, not this contest's {contest.target_rows:,}."
    return replace(
        row,
        elapsed_seconds=None,
        seconds_to_target=None,
        estimated=False,
        reason=f"{note} {row.reason}".strip(),
    )


def board_best(contest: Contest, query: LeaderboardQuery, rows: list[BoardRow]):
    """The leader's ranked figure (its time to the target, or the track's metric), which each
    row's bar is a share of. On a board ranked within classes, each class's leader's, by the
    class's label: those whose rank 1 this page shows (each class has its own leader)."""
    track = contest.track
    if track.ranking.class_key:
        return {row.track_class: row.track_metric for row in rows if row.rank == 1}
    # The leader off this page (a later page, a filter) is read apart: a fixed read of the
    # board's first rows, cached with the version and shared with the home page.
    leader = next((row for row in rows if row.rank == 1), None)
    if leader is None:
        leader = summary.contest_leader(contest)
    if leader is None:
        return None
    return leader.seconds_to_target if track.shows_run_figures else leader.track_metric


@dataclass(frozen=True)
class BoardColumn:
    label: str
    sort: str  # a key of the board's sorts (board_order); "": not sortable
    numeric: bool = False
    best_first_descending: bool = False  # the first click on a rate shows the highest first


BOARD_COLUMNS = (
    BoardColumn("Rank", "rank", numeric=True),
    BoardColumn("Entrant", "entrant"),
    BoardColumn("Storage engine", "engine"),
    BoardColumn("Hardware", "hardware"),
    BoardColumn("To target (vs best)", "to_target", numeric=True),
    BoardColumn(
        "Terminal rate (rows/s)", "terminal_rate", numeric=True, best_first_descending=True
    ),
    BoardColumn("Average rate (rows/s)", "average_rate", numeric=True, best_first_descending=True),
    BoardColumn("Verified", "verified", best_first_descending=True),
)
# Behind "more columns" (?costs=1, its public name kept): the elapsed time, which reads as the
# time to the target for every run that reached it, and the cost columns, before Verified:
# smaller is better, so the first click shows the smallest first.
ELAPSED_COLUMN = BoardColumn("Elapsed", "elapsed", numeric=True)
COST_BOARD_COLUMNS = (
    BoardColumn("Size (GiB)", "size", numeric=True),
    BoardColumn("Written (KiB/row)", "write_kb", numeric=True),
    BoardColumn("CPU (µs/row)", "cpu", numeric=True),
)
# The unit a track column's header names, by its style (its cells carry none).
STYLE_UNITS = {"rate": "rows/s", "rows": "rows", "mb": "MB/s", "minutes": "min"}


def with_unit(title: str, style: str) -> str:
    """A header with its unit: "Insert rate (rows/s)"; a title naming it already stays."""
    unit = STYLE_UNITS.get(style)
    if not unit or unit.lower() in title.lower():
        return title
    return f"{title} ({unit})"


def track_board_columns(
    track: tracks.Track, rules: RuleSet, *, costs: bool = False
) -> tuple[BoardColumn, ...]:
    """A track's board: rank, its class when it has classes, who and what, then its own
    figures (the metric sorts, the others are read from the entry's track figures). A board
    of the run's own figures adds the elapsed time and the cost columns when asked."""
    if track.shows_run_figures:
        if costs:
            who, figures = BOARD_COLUMNS[:4], BOARD_COLUMNS[4:-1]
            return (*who, ELAPSED_COLUMN, *figures, *COST_BOARD_COLUMNS, BOARD_COLUMNS[-1])
        return BOARD_COLUMNS
    by_class = (BoardColumn("Class", "class"),) if track.ranking.class_key else ()
    figures = tuple(
        BoardColumn(
            with_unit(column.title(rules), column.style),
            "metric" if column.metric else "",
            numeric=column.style != "text",
            best_first_descending=track.ranking.descending,
        )
        for column in track.columns
    )
    return (
        BoardColumn("Rank", "rank", numeric=True),
        *by_class,
        BoardColumn("Entrant", "entrant"),
        BoardColumn("Storage engine", "engine"),
        BoardColumn("Hardware", "hardware"),
        *figures,
        BoardColumn("Verified", "verified", best_first_descending=True),
    )


def unranked_columns(track: tracks.Track, rules: RuleSet) -> list[str]:
    """The figure headers of the not-ranked table, between the hardware and the reason."""
    if track.shows_run_figures:
        return ["Elapsed", "To target", "Terminal rate (rows/s)"]
    return [with_unit(track.columns[0].title(rules), track.columns[0].style)]


def board_columns(
    request: HttpRequest,
    query: LeaderboardQuery,
    track: tracks.Track = tracks.DEFAULT_TRACK,
    rules: RuleSet | None = None,
) -> list[dict]:
    """Each header's link: a click sorts by it, a second click reverses; filters stay."""
    columns = []
    for column in track_board_columns(track, rules, costs=query.costs):
        if not column.sort:
            columns.append({"label": column.label, "numeric": column.numeric, "url": ""})
            continue
        first = f"-{column.sort}" if column.best_first_descending else column.sort
        active = query.sort.removeprefix("-") == column.sort
        if active:
            target = query.sort[1:] if query.sort.startswith("-") else f"-{query.sort}"
        else:
            target = first
        arrow = ("▼" if query.sort.startswith("-") else "▲") if active else ""
        columns.append(
            {
                "label": column.label,
                "numeric": column.numeric,
                "url": _with(request, sort=target),
                "arrow": arrow,
                "active": active,
            }
        )
    return columns


def _with(request: HttpRequest, **changes) -> str:
    params = request.GET.copy()
    params.pop("page", None)
    for name, value in changes.items():
        params[name] = value
    return "?" + params.urlencode()


def _without(request: HttpRequest, *names: str) -> str:
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return ("?" + params.urlencode()) if params else ""


def _board_contest(request: HttpRequest, slug: str) -> Contest:
    contest = get_object_or_404(contest_with_references(), slug=slug)
    # The contest is public, its board not yet: saying so tells nothing about any entry.
    require_visible_board(contest, request.user)
    return contest


def leaderboard_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    contest = _board_contest(request, slug)
    query = _board_query(request, contest)
    rows = leaderboard_rows(contest=contest, query=query)
    lines = exports.leaderboard_csv_lines(
        rows, contest.track, rule_versions.contest_rule_set(contest)
    )
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{contest.slug}-leaderboard.csv"'
    return response


def leaderboard_json(request: HttpRequest, slug: str) -> JsonResponse:
    contest = _board_contest(request, slug)
    query = _board_query(request, contest)
    results = [
        exports.leaderboard_row_data(row) for row in leaderboard_rows(contest=contest, query=query)
    ]
    body = {"contest": contest.slug, "count": len(results), "results": results}
    response = JsonResponse(body)
    response["Content-Disposition"] = f'attachment; filename="{contest.slug}-leaderboard.json"'
    return response


@login_required
def entry_create(request: HttpRequest, slug: str) -> HttpResponse:
    contest = get_object_or_404(Contest, slug=slug)
    kept = None
    if request.method == "POST" and "log" not in request.FILES and request.POST.get("kept_log"):
        kept = kept_log_open(token=request.POST["kept_log"], owner=request.user)
    form = SubmissionForm(
        _posted(request),
        request.FILES or None,
        contest=contest,
        kept_log=kept.file if kept else None,
    )
    answer = 200
    if request.method == "POST":
        refusal = upload_refusal(request.user)
        if refusal:
            return _upload_refused_page(request, contest, refusal)
        with upload_slot(request.user) as slot:
            if slot.refusal:
                return _upload_refused_page(request, contest, slot.refusal)
            upload_try(request.user)
            submission, answer = _form_store(request, form, contest)
        if submission is not None:
            upload_stored(request.user)
            if kept is not None:
                kept_log_discard(kept=kept)
            messages.success(request, "Your run is in. Here are its figures and verdicts.")
            return redirect(submission)
        kept = _keep_for_retry(request, form, kept)
    return render(
        request,
        "submissions/submission_form.html",
        {"form": form, "contest": contest, "closed": not contest.is_open(), "kept": kept},
        status=answer,
    )


def _upload_refused_page(request: HttpRequest, contest: Contest, refusal) -> HttpResponse:
    context = {
        "form": SubmissionForm(contest=contest),
        "contest": contest,
        "closed": False,
        "refusal": refusal.message,
    }
    response = render(request, "submissions/submission_form.html", context, status=refusal.status)
    response["Retry-After"] = str(refusal.retry_after)
    return response


def _form_store(
    request: HttpRequest, form: SubmissionForm, contest: Contest
) -> tuple[Submission | None, int]:
    """The entry the form stored, or None and the status of the page showing its errors (413
    for a log past a limit of the work it takes to read, as for one past the size limit)."""
    if not form.is_valid():
        return None, 200
    try:
        submission = services.entry_create(
            contest=contest,
            owner=request.user,
            declared=form.declared(),
            log_file=form.cleaned_data.get("log"),
            log_seconds=settings.LOG_PARSE_SECONDS,
        )
    except refusals.DuplicateLog as duplicate:
        link = format_html(
            '<a href="{}">entry #{}</a>',
            duplicate.existing.get_absolute_url(),
            duplicate.existing.pk,
        )
        form.add_error("log", format_html("This run was already submitted as {}.", link))
    except refusals.LogTooLarge as too_large:
        form.add_error("log", too_large.message)
        return None, 413
    except refusals.SubmissionRefused as refused:
        form.add_error(refused.field if refused.field in form.fields else None, refused.message)
    else:
        return submission, 201
    return None, 200


def _keep_for_retry(request: HttpRequest, form: SubmissionForm, kept: KeptLog | None):
    """After a refused try, the log the entrant chose, kept on the server so the retry need not
    choose it again; none when the log itself was the problem."""
    if "log" in form.errors:
        if kept is not None:
            kept_log_discard(kept=kept)
        return None
    uploaded = request.FILES.get("log")
    if uploaded is not None:
        kept = log_keep(
            uploaded=uploaded, owner=request.user, name=services.display_name(uploaded.name)
        )
    if kept is not None:
        # The file input may stay empty on the retry: the kept log stands in.
        form.fields["log"].required = False
        form.fields["log"].help_text = (
            f"Kept from your last try: {kept.name} ({filesizeformat(kept.size)}). Leave this "
            "empty to send it, or choose another file."
        )
    return kept


def _visible_entry(request: HttpRequest, pk: int) -> Submission:
    # The page plots the stored preview; the full series (megabytes for long runs) stays put.
    # Its stream too (the live wing's run, a reverse one-to-one): the trust tile reads it.
    entries = Submission.objects.select_related(
        "contest", "series", "rules_version", "live_run"
    ).defer("series__columns")
    # 404, not 403: an entry under embargo does not exist for those who may not see it.
    return selectors.entry_seen_by(request.user, pk, entries)


def judged_under(submission: Submission) -> tuple[tracks.Track, RuleSet | None]:
    """The track and rules the entry's verdicts and figures were made under (never the current
    rules: those may say 32 GB beside a verdict made under 16). None: judged before versions
    were kept."""
    if submission.rules_version is None:
        return submission.contest.track, None
    return judged_under_version(submission.rules_version)


def judged_under_version(version: RuleVersion) -> tuple[tracks.Track, RuleSet]:
    return tracks.track_for(version.rules["workload"]), rule_set_of(version.rules)


def verdict_rows(track: tracks.Track, rule_set: RuleSet | None, verdicts: list) -> list[dict]:
    """The verdicts, each beside its rule's sentence as the rules they were made under state it."""
    # A wing's own rules (a stream's seal) state no limit of the contest: their sentence is fixed.
    sentences = dict(RULE_SENTENCES)
    if rule_set is not None:
        sentences.update({rule.id: rule.describe(rule_set) for rule in track.rule_list()})
    return [dict(verdict, sentence=sentences.get(verdict["rule"], "")) for verdict in verdicts]


# Where the cached entry page takes what is rendered apart: the wings' panels (a rerun finishes
# without the board moving on) and, when only they need them, the plot scripts. Entrant-written
# HTML cannot hold either (markdown.py drops comments).
PANELS_MARK = b"<!--entry-panels-->"
PANEL_SCRIPTS_MARK = b"<!--entry-panel-scripts-->"
# How long a visitor's entry page may show the wings' panels behind (a rerun that finished
# without moving the board: a visitor sees only finished ones): rendered at most this often per
# process and entry, so a page served from the cache reads nothing from the database.
PANEL_SECONDS = 5.0


def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    if not _plain_visit(request):
        return _entry_page(request, _visible_entry(request, pk))
    # An anonymous visitor sees what every other one sees: the page is rendered once per board
    # version of its contest (moved on by any change to the entry, its ranks or its
    # verification), all but the wings' panels, rendered apart (PANEL_SECONDS).
    stamp = entry_stamp(pk)
    if stamp is None:
        raise Http404("No such entry.")
    page = cached_board(
        board_cache_key("entry", stamp, request),
        stamp,
        lambda contest: (
            _entry_page(request, _entry_read(request, pk, contest), panels_later=True).content
        ),
        immutable=True,
        shelf="entries",
    )
    panels, scripts = kept_for(
        f"entry-panels:{pk}:{stamp.contest_id}:{stamp.version}",
        PANEL_SECONDS,
        lambda: _visitor_panels(request, _entry_stub(pk, stamp)),
    )
    return HttpResponse(
        page.replace(PANELS_MARK, panels, 1).replace(PANEL_SCRIPTS_MARK, scripts, 1)
    )


def _entry_read(request: HttpRequest, pk: int, contest: Contest) -> Submission:
    """The entry as `_visible_entry` reads it, for its page's build: its row, series preview,
    rules and stream and the count of its settings sent at once, one round trip on PostgreSQL
    (statements compiled once per process), beside the contest read already."""
    statements = [*selectors.entry_page_statements(pk), settings_counted(pk)]
    read_now(statements)
    submission = selectors.entry_page_entry(statements, contest)
    if submission is None:  # gone, or moved to another contest since its stamp was read
        return _visible_entry(request, pk)
    if not selectors.entry_visible(submission, request.user):
        raise Http404("No such entry.")
    return submission


def _entry_stub(pk: int, stamp: EntryStamp) -> Submission:
    """The entry as far as its stamp read it: what the panels read of it (its runs by its id,
    its owner); any other field is read from the database when asked (a deferred field)."""
    known = {"id": pk, "contest_id": stamp.contest_id, "owner_id": stamp.owner_id}
    fields = [f.attname for f in Submission._meta.concrete_fields if f.attname in known]
    return Submission.from_db("default", fields, [known[name] for name in fields])


def _visitor_panels(request: HttpRequest, submission: Submission) -> tuple[bytes, bytes]:
    """The wings' panels as an anonymous visitor sees them, and the plot scripts when only they
    need them."""
    context = {"submission": submission, **entry_panels_context(submission, request.user)}
    panels = "".join(
        render_to_string(panel.template, context, request=request)
        for panel in context["entry_panels"]
    )
    scripts = (
        render_to_string("submissions/_entry_plot_scripts.html") if context.get("reruns") else ""
    )
    return panels.encode(), scripts.encode()


def _entry_page(request: HttpRequest, submission: Submission, *, panels_later: bool = False):
    # Its rank read once (the template shows it twice), from the kept ranking keys where kept.
    ranks_known([submission])
    track, judged_rules = judged_under(submission)
    # The track's tiles are titled by the same rules their figures were computed under.
    rule_set = judged_rules or rule_versions.contest_rule_set(submission.contest)
    organizer = selectors.is_organizer(request.user)
    is_owner = request.user.is_authenticated and submission.owner_id == request.user.id
    # Shown to its owner and the organizers alone: a visitor's page does not read it.
    pending = (
        submission.pending_changes.filter(status=ChangeStatus.PENDING).first()
        if organizer or is_owner
        else None
    )
    trust = entry_trust(submission)
    context = {
        "submission": submission,
        "trust": trust,
        "trust_means": TRUST_SENTENCES[trust],
        **_placement(submission),
        "machine_facts": entry_machine_facts(submission),
        "verdicts": verdict_rows(track, judged_rules, submission.verdicts),
        "rules_caption": rule_versions.version_caption(submission.rules_version),
        "pending_change": pending,
        "may_decide": organizer,
        "cost_tiles": cost_tiles(
            db_size_bytes=submission.db_size_bytes,
            rows=submission.rows,
            window_rows=submission.terminal_window_rows,
            **{cost.figure: getattr(submission, cost.figure) for cost in PER_ROW_COSTS},
        ),
        **track_panel(submission, track, rule_set),
        "is_owner": request.user.is_authenticated and submission.owner_id == request.user.id,
        "editable": selectors.entry_editable(submission, request.user),
        "show_name": submission.publish
        or selectors.is_organizer(request.user)
        or submission.owner_id == request.user.id,
        **(
            {"panels_later": True}
            if panels_later
            else entry_panels_context(submission, request.user)
        ),
        **settings_panel(submission),
        "share": _share_links(request, submission),
    }
    return render(request, "submissions/submission_detail.html", context)


def _placement(submission: Submission) -> dict:
    """Where the entry stands among its engine's, and the leader to compare it with, once the
    contest's results are public."""
    # The page shows neither beside an entry that is not eligible: not read for one.
    if not submission.contest.results_are_public() or not submission.eligible:
        return {"placement": None, "leader": None}
    leader = contest_leader_kept(contest=submission.contest)
    return {
        "placement": entry_placement(entry=submission),
        "leader": leader if leader and leader.pk != submission.pk else None,
    }


def _share_links(request: HttpRequest, submission: Submission) -> dict | None:
    """The badge and the page's address to paste elsewhere: only once the public can see them."""
    if not submission.contest.results_are_public():
        return None
    return {
        "page": request.build_absolute_uri(submission.get_absolute_url()),
        "badge": request.build_absolute_uri(reverse("entry_badge", args=[submission.pk])),
    }


def track_panel(submission: Submission, track: tracks.Track, rules: RuleSet) -> dict:
    """What the entry page shows of the track: its figures as tiles, what the entrant
    declared for it, and the plot's data (with the seeds' figures where the plot compares)."""
    if track.shows_run_figures:
        return {"track": track}
    figures = submission.track_figures
    tiles = [
        (tile.title(rules), numbers.display(tile.value_of(figures), tile.style))
        for tile in track.tiles
    ]
    # Declared numbers are among the tiles already; a declared series is shown as written.
    declared = [
        (field.label, submission.track_declared[field.name])
        for field in track.fields
        if field.kind == "series" and field.name in submission.track_declared
    ]
    plot = {"kind": track.plot, "figures": figures, "references": []}
    if track.plot_references:
        same_class = track.plot_references == "same_class"
        references = submission.contest.references.all()
        plot["references"] = [
            {"label": reference.label, "figures": reference.track_figures}
            for reference in references
            if reference.track_figures
            and (not same_class or reference.track_class == submission.track_class)
        ]
    if track.ranking.class_key:
        tiles.insert(0, ("Class", track.ranking.label_of(submission.track_class) or "—"))
    return {"track": track, "track_tiles": tiles, "track_declared": declared, "track_plot": plot}


def submission_log(request: HttpRequest, pk: int) -> FileResponse:
    submission = _visible_entry(request, pk)
    if not submission.log:
        raise Http404("This entry has no log: its figures are declared.")
    # The page's 404 covers an entry under embargo: the log shares it.
    return FileResponse(
        submission.log.open("rb"),
        as_attachment=True,
        filename=submission.log_name,
        content_type="application/gzip" if submission.log.name.endswith(".gz") else "text/plain",
    )


def submission_server_config(request: HttpRequest, pk: int) -> HttpResponse:
    """The entry's whole server configuration as it was declared: the page shows its start."""
    submission = _visible_entry(request, pk)
    if not submission.server_config:
        raise Http404("This entry declares no server configuration.")
    return HttpResponse(submission.server_config, content_type="text/plain; charset=utf-8")


def _owned_entry(request: HttpRequest, pk: int) -> Submission:
    # A hidden entry is missing here too; a visible one says who may change it.
    submission = selectors.entry_seen_by(request.user, pk)
    if not selectors.entry_editable(submission, request.user):
        raise PermissionDenied("Only the entrant can change an entry, and only until the deadline.")
    return submission


@login_required
def entry_edit(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _owned_entry(request, pk)
    form = DeclarationForm(_posted(request), instance=submission)
    if request.method == "POST" and form.is_valid():
        declared = form.declared()
        # The form wrote the values onto the instance already; reload so the service starts clean.
        submission.refresh_from_db()
        try:
            outcome = edits.entry_edit(submission=submission, declared=declared, by=request.user)
        except refusals.SubmissionRefused as refused:
            form.add_error(refused.field if refused.field in form.fields else None, refused.message)
        else:
            if outcome.pending is not None:
                messages.info(
                    request,
                    "The results are public and this change moves a figure or a verdict: it "
                    "waits for an organizer's approval. Until then the entry stays as published.",
                )
            else:
                messages.success(request, "Saved, and checked against the rules again.")
            return redirect(submission)
    return render(
        request, "submissions/submission_edit.html", {"form": form, "submission": submission}
    )


@login_required
@require_POST
def entry_delete(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _owned_entry(request, pk)
    services.entry_delete(submission=submission)
    messages.success(request, f"Entry #{pk} is deleted.")
    return redirect("my_entries")


@login_required
def my_entries(request: HttpRequest) -> HttpResponse:
    entries = selectors.user_entries(request.user)
    return render(request, "submissions/my_entries.html", {"entries": entries})


def entry_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Who changed the entry's declaration or log, when and what."""
    # The entry, its contest and its history records in one round trip (statements compiled
    # once per process): the page shows none of the entry's series, rules or stream.
    records_read = selectors.history_statement(pk)
    with reading_ahead([]):
        submission = selectors.entry_seen_at_once(
            request.user, pk, related=False, more=[records_read]
        )
        records = selectors.history_records(records_read)
    full = selectors.is_organizer(request.user) or submission.owner_id == request.user.id
    history = edits.entry_history(submission=submission, full=full, records=records)
    return render(
        request,
        "submissions/submission_history.html",
        {"submission": submission, "history": history},
    )


@login_required
def account(request: HttpRequest) -> HttpResponse:
    context = {"tokens": tokens.tokens_of(request.user), "token_days": settings.API_TOKEN_DAYS}
    return render(request, "submissions/account.html", context)


@login_required
@require_POST
def pending_change_decide(request: HttpRequest, pk: int, decision: str) -> HttpResponse:
    if not selectors.is_organizer(request.user):
        raise Http404("No such change.")
    change = get_object_or_404(PendingChange.objects.select_related("submission"), pk=pk)
    if decision not in ("approve", "reject"):
        raise Http404("No such decision.")
    if decision == "approve":
        try:
            edits.pending_change_approve(change=change, by=request.user)
        except refusals.SubmissionRefused as refused:
            messages.error(request, f"Not applied: {refused.message}")
        else:
            messages.success(request, "Approved: the entry shows the change and was checked again.")
    else:
        edits.pending_change_reject(change=change, by=request.user)
        messages.success(request, "Rejected: the entry stays as published.")
    return redirect(change.submission)


@login_required
@require_POST
def token_revoke(request: HttpRequest, kind: str) -> HttpResponse:
    if kind != "api" or not tokens.api_token_revoke(user=request.user):
        raise Http404("No such token.")
    messages.success(request, "Your API token is revoked: clients using it are refused from now.")
    return redirect("account")
