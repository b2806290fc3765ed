"""The project before adoption: DRF's defaults, its own error views on every path."""

from __future__ import annotations

from django.test import override_settings
from django.urls import include, path

from . import project, settings

with override_settings(REST_FRAMEWORK=settings.before()["REST_FRAMEWORK"]):
    router = project.build_router()
    schema_view = project.schema_view()

urlpatterns = [
    path("api/", include(router.urls)),
    path("api/schema/", schema_view, name="schema"),
    path("ui/crash", project.ui_crash),
]
handler404 = f"{project.__name__}.handler_404"
handler500 = f"{project.__name__}.handler_500"
