"""``path("", include("django_api_conventions.contrib.spectacular.urls"))``: ``openapi.json``
(``?version=v1`` for another served version) and ``docs``, Swagger UI with its own assets."""

from django.urls import path

from .views import OpenAPIDocsView, OpenAPISchemaView, docs_asset

__all__: list[str] = []

app_name = "api_conventions_openapi"

urlpatterns = [
    path("openapi.json", OpenAPISchemaView.as_view(), name="schema"),
    path("docs", OpenAPIDocsView.as_view(), name="docs"),
    path("docs/assets/<path:path>", docs_asset, name="asset"),
]
