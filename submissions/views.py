from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from submissions import selectors, services
from submissions.forms import DeclarationForm, SignupForm, SubmissionForm
from submissions.models import Contest, Submission
from submissions.rules import RULES
from submissions.throttle import too_many_message, upload_allowed


def home(request: HttpRequest) -> HttpResponse:
    contests = Contest.objects.all()
    return render(request, "submissions/home.html", {"contests": contests})


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. You can submit a run now.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


def contest_detail(request: HttpRequest, slug: str) -> HttpResponse:
    contest = get_object_or_404(Contest, slug=slug)
    rule_set = services.contest_rule_set(contest)
    rules = [(rule.id, rule.describe(rule_set)) for rule in RULES]
    return render(request, "submissions/contest_detail.html", {"contest": contest, "rules": rules})


@login_required
def submission_create(request: HttpRequest, slug: str) -> HttpResponse:
    contest = get_object_or_404(Contest, slug=slug)
    form = SubmissionForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        allowed, retry_after = upload_allowed(request.user)
        if not allowed:
            context = {
                "form": SubmissionForm(),
                "contest": contest,
                "closed": False,
                "refusal": too_many_message(retry_after),
            }
            response = render(request, "submissions/submission_form.html", context, status=429)
            response["Retry-After"] = str(retry_after)
            return response
    if request.method == "POST" and form.is_valid():
        declared = {name: form.cleaned_data[name] for name in services.DECLARED_FIELDS}
        try:
            submission = services.submission_create(
                contest=contest,
                owner=request.user,
                declared=declared,
                log_file=form.cleaned_data["log"],
            )
        except services.DuplicateLog as duplicate:
            link = format_html(
                '<a href="{}">entry #{}</a>',
                duplicate.existing.get_absolute_url(),
                duplicate.existing.pk,
            )
            form.add_error("log", format_html("This log was already submitted as {}.", link))
        except services.SubmissionRefused as refused:
            form.add_error(refused.field if refused.field in form.fields else None, refused.message)
        else:
            messages.success(request, "Your run is in. Here are its figures and verdicts.")
            return redirect(submission)
    initial_closed = not contest.is_open()
    return render(
        request,
        "submissions/submission_form.html",
        {"form": form, "contest": contest, "closed": initial_closed},
    )


def _visible_submission(request: HttpRequest, pk: int) -> Submission:
    submission = get_object_or_404(Submission.objects.select_related("contest", "series"), pk=pk)
    if not selectors.submission_visible(submission, request.user):
        raise PermissionDenied("This entry is not published yet.")
    return submission


def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _visible_submission(request, pk)
    rule_set = services.contest_rule_set(submission.contest)
    sentences = {rule.id: rule.describe(rule_set) for rule in RULES}
    verdicts = [
        dict(verdict, sentence=sentences.get(verdict["rule"], ""))
        for verdict in submission.verdicts
    ]
    context = {
        "submission": submission,
        "verdicts": verdicts,
        "is_owner": request.user.is_authenticated and submission.owner_id == request.user.id,
        "editable": selectors.submission_editable(submission, request.user),
        "show_name": submission.publish
        or selectors.is_organizer(request.user)
        or submission.owner_id == request.user.id,
    }
    return render(request, "submissions/submission_detail.html", context)


def submission_log(request: HttpRequest, pk: int) -> FileResponse:
    submission = _visible_submission(request, pk)
    return FileResponse(
        submission.log.open("rb"),
        as_attachment=True,
        filename=submission.log_name,
        content_type="application/gzip" if submission.log.name.endswith(".gz") else "text/plain",
    )


def _owned_submission(request: HttpRequest, pk: int) -> Submission:
    submission = get_object_or_404(Submission.objects.select_related("contest"), pk=pk)
    if not selectors.submission_editable(submission, request.user):
        raise PermissionDenied("Only the entrant can change an entry, and only until the deadline.")
    return submission


@login_required
def submission_edit(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _owned_submission(request, pk)
    form = DeclarationForm(request.POST or None, instance=submission)
    if request.method == "POST" and form.is_valid():
        declared = {name: form.cleaned_data[name] for name in services.DECLARED_FIELDS}
        # The form wrote the values onto the instance already; reload so the service starts clean.
        submission.refresh_from_db()
        services.submission_update(submission=submission, declared=declared)
        messages.success(request, "Saved, and checked against the rules again.")
        return redirect(submission)
    return render(
        request, "submissions/submission_edit.html", {"form": form, "submission": submission}
    )


@login_required
@require_POST
def submission_delete(request: HttpRequest, pk: int) -> HttpResponse:
    submission = _owned_submission(request, pk)
    services.submission_delete(submission=submission)
    messages.success(request, f"Entry #{pk} is deleted.")
    return redirect("my_entries")


@login_required
def my_entries(request: HttpRequest) -> HttpResponse:
    entries = selectors.user_submissions(request.user)
    return render(request, "submissions/my_entries.html", {"entries": entries})
