"""The project once adopted: the package's error views, which hand the HTML pages over to the
project's (``HTML_ERROR_HANDLERS``); ``IdempotencyMixin`` on the base viewset; the project's
schema class behind ``ProblemSchemaMixin``."""

from __future__ import annotations

from django.test import override_settings
from django.urls import include, path

from django_api_conventions.contrib.spectacular import ProblemSchemaMixin
from django_api_conventions.idempotency import IdempotencyMixin

from . import project, settings


class APISchema(ProblemSchemaMixin, project.NetBoxAutoSchema):
    """The project's schema class with the package's problem responses."""


with override_settings(REST_FRAMEWORK=settings.after()["REST_FRAMEWORK"]):
    router = project.build_router(IdempotencyMixin)
    schema_view = project.schema_view()

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/schema/", schema_view, name="schema"),
    path("ui/crash", project.ui_crash),
    path("", include("django_api_conventions.urls")),
]
handler404 = "django_api_conventions.problems.django_handlers.page_not_found"
handler500 = "django_api_conventions.problems.django_handlers.server_error"
