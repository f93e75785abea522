from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "submissions"
    verbose_name = "iiBench registry"

    def ready(self) -> None:
        from submissions import signals  # noqa: F401 - connects the receivers
