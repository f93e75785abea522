from django.contrib import admin, messages
from django.template.response import TemplateResponse

from runner import services
from runner.forms import RerunForm
from runner.models import VerificationRun


@admin.register(VerificationRun)
class VerificationRunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "submission",
        "target",
        "outcome",
        "kind",
        "scale",
        "repeats",
        "step",
        "rows_done",
        "rows_target",
        "created_at",
    )
    list_filter = ("kind", "status", "verdict", "target")
    list_select_related = ("submission",)
    readonly_fields = [field.name for field in VerificationRun._meta.fields]
    actions = ["cancel_runs"]

    @admin.display(description="Outcome", ordering="verdict")
    def outcome(self, run: VerificationRun) -> str:
        # One outcome, as on the entry page: the verdict once judged, else the status.
        return run.outcome_label

    def has_add_permission(self, request):
        return False  # reruns start from an entry, with its contest's rules

    @admin.action(description="Cancel the selected reruns")
    def cancel_runs(self, request, queryset):
        for run in queryset:
            services.rerun_cancel(run=run)
        self.message_user(
            request, f"Cancel requested for {queryset.count()} reruns.", messages.SUCCESS
        )


@admin.action(description="Start a verification rerun of the selected entries")
def start_reruns(modeladmin, request, queryset):
    """Asks for the target and the rows first, then queues one rerun per entry."""
    form = RerunForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        started = 0
        for submission in queryset:
            try:
                services.rerun_start(
                    submission=submission, requested_by=request.user, **form.cleaned_data
                )
                started += 1
            except services.RerunRefused as refused:
                modeladmin.message_user(
                    request, f"Entry #{submission.pk}: {refused.message}", messages.ERROR
                )
        modeladmin.message_user(request, f"{started} reruns queued.", messages.SUCCESS)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": "Start verification reruns",
        "form": form,
        "entries": queryset,
        "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/runner/start_reruns.html", context)
