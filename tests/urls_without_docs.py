"""The package's problem type pages without its OpenAPI URLs: the pages link no /docs."""

from django.urls import include, path

urlpatterns = [path("", include("django_api_conventions.urls"))]
