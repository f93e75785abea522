from django.contrib import admin, messages

from submissions import services
from submissions.models import Contest, ReferenceResult, Submission
from submissions.panels import ENTRY_ADMIN_ACTIONS


@admin.register(Contest)
class ContestAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "workload", "target_rows", "deadline", "results_published_at")
    prepopulated_fields = {"slug": ("title",)}
    actions = ["recheck_entries", "add_reference_results", "apply_track_defaults"]
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
        ("Verification", {"fields": ("rerun_tolerance",)}),
    )

    @admin.action(description="Re-check all entries against the current rules")
    def recheck_entries(self, request, queryset):
        for contest in queryset:
            outcome = services.contest_recheck(contest=contest)
            text = f"{contest.title}: {outcome.checked} entries re-checked."
            if outcome.unreadable:
                text += (
                    f" {outcome.unreadable} stored logs no longer pass the checks: those entries "
                    "are marked not eligible, with the reason."
                )
            level = messages.WARNING if outcome.unreadable else messages.SUCCESS
            self.message_user(request, text, level)

    @admin.action(description="Apply the track's default rules (target rows, track rules)")
    def apply_track_defaults(self, request, queryset):
        for contest in queryset:
            services.contest_track_defaults_apply(contest=contest)
            self.message_user(
                request,
                f"{contest.title}: the {contest.track.label} defaults are set; re-check the "
                "entries to judge them by them.",
                messages.SUCCESS,
            )

    @admin.action(description="Add the seeds' published results as reference rows")
    def add_reference_results(self, request, queryset):
        for contest in queryset:
            stored = services.reference_results_create(contest=contest)
            self.message_user(
                request, f"{contest.title}: {len(stored)} reference rows.", messages.SUCCESS
            )


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
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
    list_filter = ("contest", "eligible", "verified", "drive_kind", "storage_engine")
    search_fields = ("entrant_name", "email", "storage_engine", "cpu_model")
    list_select_related = ("contest", "owner")
    readonly_fields = (
        "log_name", "log_sha256", "log_size", "log_format", "log_format_label", "parameters", "rows",
        "elapsed_seconds", "average_rate", "terminal_rate", "terminal_window_rows",
        "terminal_window_start_row", "seconds_to_target", "estimated", "verdicts", "eligible",
        "ineligible_reason", "checked_at", "rank", "verified", "track_declared", "track_figures",
        "track_metric", "track_class",
    )  # fmt: skip
    raw_id_fields = ("owner",)
    # Other apps add theirs (the runner: start a verification rerun), see submissions/panels.py.
    actions = ENTRY_ADMIN_ACTIONS

    # Deleting here bypasses services.submission_delete: rank the contests again afterwards.
    def delete_model(self, request, obj):
        contest = obj.contest
        super().delete_model(request, obj)
        services.contest_rank(contest=contest)

    def delete_queryset(self, request, queryset):
        contests = list(Contest.objects.filter(submissions__in=queryset).distinct())
        super().delete_queryset(request, queryset)
        for contest in contests:
            services.contest_rank(contest=contest)


@admin.register(ReferenceResult)
class ReferenceResultAdmin(admin.ModelAdmin):
    list_display = (
        "label", "contest", "storage_engine", "elapsed_seconds", "terminal_rate", "source",
    )  # fmt: skip
    list_filter = ("contest", "storage_engine")
