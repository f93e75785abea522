from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from runner import fleet, host_board, selectors, services
from runner.forms import RerunForm, target_choices
from runner.heartbeats import queued_without_worker, served_queues
from runner.models import VerificationRun
from submissions.board.visibility import require_visible_board
from submissions.entries.selectors import is_organizer, seen_or_404
from submissions.models import Contest, Submission


def rerun_panel(submission: Submission, user) -> dict:
    """What the entry page's rerun section shows this viewer."""
    organizer = is_organizer(user)
    reruns = list(selectors.runs_for_entry(submission, user))
    served = served_queues()
    for run in reruns:
        # A queued run whose queue no live worker consumes would wait for ever without a word.
        run.no_worker = bool(queued_without_worker(run, served))
    # The badge's tooltip: the headline of the newest run that earned it.
    earned = next(
        (
            run.result.get("headline")
            for run in reruns
            if run.verdict == submission.verification and isinstance(run.result, dict)
        ),
        None,
    )
    return {
        "reruns": reruns,
        "verified_headline": earned or "",
        "organizer": organizer,
        "rerun_form": RerunForm() if organizer else None,
        # Which live hosts each offered target would send a run to, and why not the others.
        "host_choices": (
            services.host_choices_for_entry(submission, [name for name, _ in target_choices()])
            if organizer
            else {}
        ),
    }


@staff_member_required
@require_POST
def rerun_start(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(Submission, pk=pk)
    form = RerunForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errors in form.errors.values() for e in errors))
        return redirect(submission)
    try:
        run = services.rerun_start(
            submission=submission, requested_by=request.user, **form.cleaned_data
        )
    except services.RerunRefused as refused:
        messages.error(request, refused.message)
        return redirect(submission)
    messages.success(
        request,
        f"Rerun #{run.pk} ({run.get_kind_display().lower()}, scale 1/{run.scale}, "
        f"{run.rows_target:,} rows, {run.repeats} run{'s' if run.repeats > 1 else ''}) "
        f"is queued on {run.target}"
        + (f", sent to the comparable host {run.routed_host}." if run.routed_host else "."),
    )
    if not run.routed_host:
        messages.warning(request, run.message)
    warning = queued_without_worker(run)
    if warning:
        messages.warning(request, warning)
    return redirect(f"{submission.get_absolute_url()}#rerun-{run.pk}")


@staff_member_required
@require_POST
def rerun_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = services.rerun_cancel(run=get_object_or_404(VerificationRun, pk=pk))
    messages.success(request, f"Rerun #{run.pk}: cancel requested.")
    return redirect(f"{run.submission.get_absolute_url()}#rerun-{run.pk}")


def _visible_run(request: HttpRequest, pk: int) -> VerificationRun:
    # 404 like its entry: a rerun of an entry under embargo does not exist for this user.
    runs = VerificationRun.objects.select_related("submission__contest")
    return seen_or_404(runs, pk, lambda run: selectors.run_visible(run, request.user), "rerun")


def rerun_log(request: HttpRequest, pk: int) -> HttpResponse:
    run = _visible_run(request, pk)
    return HttpResponse(run.log, content_type="text/plain; charset=utf-8")


def rerun_detail(request: HttpRequest, pk: int) -> HttpResponse:
    # Checked here too: the redirect alone would tell anyone which entry a draft's rerun is of.
    run = _visible_run(request, pk)
    return redirect(f"{run.submission.get_absolute_url()}#rerun-{run.pk}")


def host_board_panel(contest: Contest, user) -> dict:
    """The contest page's link to its host board, when it sets a standard scale."""
    return {"host_board_scale": contest.verification_scale or None}


def _board_rows(request: HttpRequest, slug: str) -> tuple[Contest, list, str, str]:
    contest = get_object_or_404(Contest, slug=slug)
    require_visible_board(contest, request.user)
    host = request.GET.get("host", "")
    sort = request.GET.get("sort", host_board.DEFAULT_SORT)
    try:
        rows = host_board.host_board(contest, host=host, sort=sort)
    except ValueError:
        sort = host_board.DEFAULT_SORT
        rows = host_board.host_board(contest, host=host, sort=sort)
    return contest, rows, host, sort


SORTABLE_COLUMNS = (
    ("entrant", "Entry"),
    ("solution", "Solution"),
    ("host", "Host"),
    ("scale", "Scale, repeats"),
    ("seconds_at_scale", "Time at scale"),
    ("terminal_rate", "Terminal rate (rows/s)"),
    ("cliff", "Cliff (of the run)"),
)


def host_board_page(request: HttpRequest, slug: str) -> HttpResponse:
    contest, rows, host, sort = _board_rows(request, slug)
    return render(
        request,
        "runner/host_board.html",
        {
            "contest": contest,
            "rows": rows,
            "host": host,
            "hosts": host_board.hosts_of(contest),
            "sort": sort,
            "columns": SORTABLE_COLUMNS,
        },
    )


def host_board_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    contest, rows, _, _ = _board_rows(request, slug)
    response = StreamingHttpResponse(
        host_board.csv_lines(rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{contest.slug}-host-board.csv"'
    return response


@staff_member_required
def verification_hosts(request: HttpRequest) -> HttpResponse:
    return render(request, "runner/verification_hosts.html", {"rows": fleet.host_rows()})
