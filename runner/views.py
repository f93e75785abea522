from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from runner import fleet, host_board, rejudge, selectors, services
from runner.calibration import CalibrationRefused, calibration_request
from runner.forms import RerunForm, target_choices
from runner.heartbeats import queued_without_worker, served_queues
from runner.models import RerunStatus, VerificationRun
from submissions.board.visibility import require_visible_board
from submissions.entries.selectors import is_organizer, seen_or_404
from submissions.models import Contest, Submission


def rerun_panel(submission: Submission, user) -> dict:
    """What the entry page's rerun section shows this viewer."""
    organizer = is_organizer(user)
    reruns = list(selectors.runs_for_entry(submission, user))
    # Which queues a worker serves matters to a queued run alone: not read for the others.
    queued = any(run.status == RerunStatus.QUEUED for run in reruns)
    served = served_queues() if queued else set()
    for run in reruns:
        # A queued run whose queue no live worker consumes would wait for ever without a word.
        run.no_worker = bool(queued_without_worker(run, served))
    return {
        "reruns": reruns,
        "organizer": organizer,
        "rerun_form": _rerun_form(submission) if organizer else None,
        # Which live hosts each offered target would send a run to, and why not the others.
        "host_choices": (
            services.host_choices_for_entry(submission, [name for name, _ in target_choices()])
            if organizer
            else {}
        ),
    }


def _rerun_form(submission: Submission) -> RerunForm:
    offered = [name for name, _ in target_choices()]
    return RerunForm(initial=services.rerun_form_defaults(submission=submission, targets=offered))


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


@staff_member_required
@require_POST
def rerun_judge_again(request: HttpRequest, pk: int) -> HttpResponse:
    """Judge a finished rerun again from the output it stored (after its host was calibrated,
    say): the verdict, and the entry's outcome, follow at once."""
    run = get_object_or_404(VerificationRun.objects.select_related("submission__contest"), pk=pk)
    before = run.get_verdict_display() or "not judged"
    judged = rejudge.rerun_rejudge(run=run)
    run.refresh_from_db()
    if judged is None:
        messages.error(
            request,
            f"Rerun #{run.pk} cannot be judged again: it did not succeed, its target is no longer "
            "configured, or its stored output is not all there.",
        )
    elif judged.changed:
        messages.success(
            request, f"Rerun #{run.pk} judged again: {run.get_verdict_display()} (was {before})."
        )
    else:
        messages.info(request, f"Rerun #{run.pk} judged again: it stands ({before}).")
    return redirect(f"{run.submission.get_absolute_url()}#rerun-{run.pk}")


@staff_member_required
@require_POST
def rerun_host_calibrate(request: HttpRequest, pk: int) -> HttpResponse:
    """Calibrate the host a rerun ran on, queued behind the work already sent to it."""
    run = get_object_or_404(VerificationRun.objects.select_related("submission"), pk=pk)
    try:
        calibration = calibration_request(run=run)
    except CalibrationRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            f"Calibration #{calibration.pk} of {calibration.host} on {calibration.target} "
            f"({calibration.get_status_display().lower()}): {calibration.message} Judge rerun "
            f"#{run.pk} again once it is done.",
        )
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
