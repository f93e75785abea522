from django.contrib import admin

from submissions.live.models import LiveRun, WitnessToken


@admin.register(WitnessToken)
class WitnessTokenAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "contest", "created_at", "expires_at", "revoked_at")
    list_filter = ("contest",)
    readonly_fields = ("key_hash",)


@admin.register(LiveRun)
class LiveRunAdmin(admin.ModelAdmin):
    list_display = ("id", "contest", "owner", "opened_at", "rows", "sealed_at", "witnessed")
    list_filter = ("contest", "witnessed")
    readonly_fields = ("head", "seal_verdicts", "machine", "declared")
    raw_id_fields = ("submission", "token", "owner")
