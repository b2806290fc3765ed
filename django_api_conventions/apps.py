from django.apps import AppConfig


class APIConventionsConfig(AppConfig):
    name = "django_api_conventions"
    verbose_name = "API conventions"
    # Pinned so that a project's DEFAULT_AUTO_FIELD never asks for a migration of ours.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, middleware  # noqa: F401 -- registers checks and signal receivers

        checks.register_all()
