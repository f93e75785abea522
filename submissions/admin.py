from django.contrib import admin, messages
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from simple_history.admin import SimpleHistoryAdmin

from submissions.contests import ranks as contest_ranks
from submissions.contests import reference_rows, rule_versions
from submissions.entries import edits, refusals, services
from submissions.entries.outcome import SETUP_FIELDS
from submissions.models import (
    ChangeStatus,
    Contest,
    PendingChange,
    Recheck,
    ReferenceResult,
    RuleVersion,
    Submission,
)
from submissions.tasks import recheck_send
from submissions.wings import ENTRY_ADMIN_ACTIONS


class RuleVersionInline(admin.TabularInline):
    model = RuleVersion
    fields = ("number", "created_at", "created_by", "changes")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-number",)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class RecheckInline(admin.TabularInline):
    """The background re-checks and their progress: the organizer sees them here."""

    model = Recheck
    fields = (
        "rule_version",
        "status",
        "checked",
        "total",
        "unreadable",
        "queued_at",
        "finished_at",
        "message",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    max_num = 0


@admin.register(Contest)
class ContestAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "workload", "target_rows", "deadline", "results_published_at")
    prepopulated_fields = {"slug": ("title",)}
    actions = ["recheck_entries", "add_reference_results", "apply_track_defaults"]
    inlines = [RecheckInline, RuleVersionInline]
    fieldsets = (
        (None, {"fields": ("title", "slug", "workload", "description")}),
        (
            "Run rules",
            {
                "fields": (
                    "target_rows",
                    "rows_per_commit",
                    "max_rows_per_insert",
                    "report_every_rows",
                    "report_every_seconds",
                    "indexes_from_start",
                    "terminal_window_rows",
                )
            },
        ),
        ("Track rules", {"fields": ("track_rules",)}),
        (
            "Hardware caps",
            {
                "fields": (
                    "max_sockets",
                    "max_cores",
                    "max_memory_gb",
                    "max_drives",
                    "require_direct_attached",
                    "raid_allowed",
                )
            },
        ),
        ("Software", {"fields": ("required_mysql_version", "preferred_os")}),
        ("Dates", {"fields": ("deadline", "timezone", "results_published_at")}),
        ("Verification", {"fields": ("rerun_tolerance", "verification_scale")}),
    )

    def save_model(self, request, obj, form, change):
        # Read by the signal that records the rule version: the version names who changed it.
        obj._rules_changed_by = request.user
        super().save_model(request, obj, form, change)
        version = rule_versions.rule_version_latest(obj)
        if change and version and version.created_by_id == request.user.pk and version.changes:
            self.message_user(
                request,
                f"Rules v{version.number}: {'; '.join(version.changes)}. The entries are "
                "re-checked in the background; progress below and on the contest page.",
                messages.SUCCESS,
            )

    @admin.action(description="Re-check all entries against the current rules (background)")
    def recheck_entries(self, request, queryset):
        for contest in queryset:
            with transaction.atomic():
                version = rule_versions.rule_version_current(contest)
                recheck = rule_versions.recheck_queue(version=version)
                if recheck is not None:
                    transaction.on_commit(lambda pk=recheck.pk: recheck_send(pk))
            text = (
                f"{contest.title}: re-checking its entries under rules v{version.number} in the "
                "background; progress on the contest's page."
                if recheck
                else f"{contest.title}: no entries to re-check."
            )
            self.message_user(request, text, messages.SUCCESS)

    @admin.action(description="Apply the track's default rules (target rows, track rules)")
    def apply_track_defaults(self, request, queryset):
        for contest in queryset:
            services.contest_track_defaults_apply(contest=contest)
            self.message_user(
                request,
                f"{contest.title}: the {contest.track.label} defaults are set; if they changed "
                "a rule, the entries are re-checked under them in the background.",
                messages.SUCCESS,
            )

    @admin.action(description="Add the seeds' published results as reference rows")
    def add_reference_results(self, request, queryset):
        for contest in queryset:
            stored = reference_rows.reference_results_create(contest=contest)
            self.message_user(
                request, f"{contest.title}: {len(stored)} reference rows.", messages.SUCCESS
            )


@admin.register(Submission)
class SubmissionAdmin(SimpleHistoryAdmin):
    list_display = (
        "id",
        "contest",
        "entrant_name",
        "storage_engine",
        "rows",
        "eligible",
        "rank",
        "verified",
        "submitted_at",
    )
    list_filter = ("contest", "eligible", "verification", "drive_kind", "server_family", "engine")
    search_fields = ("entrant_name", "email", "storage_engine", "cpu_model")
    list_select_related = ("contest", "owner")
    readonly_fields = (
        "log_name", "log_sha256", "log_size", "log_format", "log_format_label", "parameters", "rows",
        "elapsed_seconds", "average_rate", "terminal_rate", "terminal_window_rows",
        "terminal_window_start_row", "seconds_to_target", "estimated", "verdicts", "eligible",
        "ineligible_reason", "checked_at", "rank", "verified", "verification", "verification_at",
        "verification_headline", "setup_edited_at", "track_declared", "track_figures",
        "track_metric", "track_class", "engine", "rules_version", "edited_at",
    )  # fmt: skip
    raw_id_fields = ("owner",)
    # Other apps add theirs (the runner: start a verification rerun), see submissions/wings.py.
    actions = ENTRY_ADMIN_ACTIONS

    # django-simple-history reads the entry's and the version's id as numbers: an id that is
    # not one is no entry (404), not a ValueError (500).
    def history_view(self, request, object_id, extra_context=None):
        _entry_id_or_404(object_id)
        return super().history_view(request, object_id, extra_context)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        _entry_id_or_404(object_id)
        _entry_id_or_404(version_id)
        return super().history_form_view(request, object_id, version_id, extra_context)

    def get_changelist_instance(self, request):
        # The rank column: the page's ranks read at once, not a count per row.
        changelist = super().get_changelist_instance(request)
        changelist.result_list = contest_ranks.ranks_known(changelist.result_list)
        return changelist

    def save_model(self, request, obj, form, change):
        # An organizer's edit of the declaration is kept in the history (SimpleHistoryAdmin
        # names them), marked "edited" and judged again, like the entrant's own.
        if change and form.changed_data:
            obj.edited_at = timezone.now()
            # A verification of the machine, server, engine or settings before this edit no
            # longer speaks for the entry (entries/outcome.py).
            if set(form.changed_data) & set(SETUP_FIELDS):
                obj.setup_edited_at = obj.edited_at
        super().save_model(request, obj, form, change)
        if change:
            version = rule_versions.rule_version_current(obj.contest)
            services.entry_recheck(submission=obj, version=version)

    # Deleting here bypasses services.entry_delete; each deleted entry's post_delete signal
    # moves its contest's board version on (submissions/signals.py), one or many at once.


def _entry_id_or_404(text: str) -> None:
    text = str(text)
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        raise Http404("No such entry.")


@admin.register(ReferenceResult)
class ReferenceResultAdmin(admin.ModelAdmin):
    list_display = (
        "label", "contest", "storage_engine", "elapsed_seconds", "terminal_rate", "source",
    )  # fmt: skip
    list_filter = ("contest", "storage_engine")


@admin.register(PendingChange)
class PendingChangeAdmin(admin.ModelAdmin):
    """Edits of published entries that change a figure or a verdict, waiting for a decision."""

    list_display = ("submission", "status", "requested_by", "requested_at", "decided_by")
    list_filter = ("status",)
    fields = (
        "submission",
        "status",
        "changes",
        "effects",
        "requested_by",
        "requested_at",
        "decided_by",
        "decided_at",
    )
    readonly_fields = fields
    actions = ["approve", "reject"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Approve: apply the change to the entry")
    def approve(self, request, queryset):
        for change in queryset.filter(status=ChangeStatus.PENDING):
            try:
                edits.pending_change_approve(change=change, by=request.user)
            except refusals.SubmissionRefused as refused:
                self.message_user(
                    request, f"#{change.submission_id}: {refused.message}", messages.ERROR
                )

    @admin.action(description="Reject: the entry stays as published")
    def reject(self, request, queryset):
        for change in queryset.filter(status=ChangeStatus.PENDING):
            edits.pending_change_reject(change=change, by=request.user)
