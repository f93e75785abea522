from django.apps import AppConfig


class LiveConfig(AppConfig):
    # Its own app (label "live"), so its tables and migration live beside its code.
    default_auto_field = "django.db.models.BigAutoField"
    name = "submissions.live"
    label = "live"
    verbose_name = "Witnessed runs"
