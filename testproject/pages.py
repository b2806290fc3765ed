"""The example service's own pages: the JSON index at ``/``, the index of each version's
collections at its root (``/v2``), and the migration guide that its deprecation ``Link``
headers and its 410 for the retired version point at."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from django_api_conventions.http.read_only import read_only
from django_api_conventions.maintenance.middleware import maintenance_exempt
from django_api_conventions.pagination import StrictQueryParametersMixin
from django_api_conventions.versioning.lifecycle import APIVersion, get_version_table
from django_api_conventions.versioning.urls import reverse as versioned_reverse

#: The collections a version root lists: the router's basenames (testproject/urls.py).
COLLECTIONS = ("users", "invoices", "orders")


def _date(moment: Any) -> str | None:
    return moment.date().isoformat() if moment is not None else None


def version_entry(request: Request, version: APIVersion) -> dict[str, Any]:
    """One version of the index: its status today, its base URL, its dates and documents."""
    status = version.state(timezone.now())
    entry: dict[str, Any] = {
        "name": version.name,
        "status": status,
        "url": request.build_absolute_uri(f"/{version.name}"),
    }
    if version.deprecation is not None:
        entry["deprecation"] = _date(version.deprecation)
    if version.sunset is not None:
        entry["sunset"] = _date(version.sunset)
    if status != "retired":
        schema = reverse("api_conventions_openapi:schema")
        entry["openapi"] = request.build_absolute_uri(f"{schema}?version={version.name}")
    if version.migration_guide:
        entry["migration_guide"] = version.migration_guide
    return entry


# The index touches no database: it answers during maintenance, as the docs do.
@maintenance_exempt
class IndexView(StrictQueryParametersMixin, APIView):
    """``GET /``: the versions (each with its status and base URL) and the documentation."""

    # The path carries no version.
    versioning_class = None

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        table = get_version_table()
        current = table.current if table else None
        return Response(
            {
                "title": settings.SPECTACULAR_SETTINGS["TITLE"],
                "current_version": current.name if current else None,
                "versions": [version_entry(request, version) for version in (table.versions if table else [])],
                "docs": {
                    name: request.build_absolute_uri(reverse(url_name))
                    for name, url_name in (
                        ("docs", "api_conventions_openapi:docs"),
                        ("openapi", "api_conventions_openapi:schema"),
                        ("problems", "api_conventions:problem-type-list"),
                    )
                },
            }
        )


class VersionRootView(StrictQueryParametersMixin, APIView):
    """``GET /v2`` (any served version's root): the version's collections, so that every URL the
    index at ``/`` lists answers. A retired version's root is its 410 (versioning middleware),
    an unknown one's a 404; a deprecated one's answer carries its deprecation headers."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        # The versioning class has checked the path's version against VERSIONS.
        version = request.version
        table = get_version_table()
        entry = table.get(version) if table and version else None
        if entry is None:
            raise NotFound()
        schema = reverse("api_conventions_openapi:schema")
        return Response(
            {
                "version": entry.name,
                "status": entry.state(timezone.now()),
                "collections": {
                    name: request.build_absolute_uri(versioned_reverse(f"{name[:-1]}-list", version=entry.name))
                    for name in COLLECTIONS
                },
                "openapi": request.build_absolute_uri(f"{schema}?version={entry.name}"),
            }
        )


@maintenance_exempt
@read_only  # a page: OPTIONS and 405s with Allow, never the CSRF 403 or the page for POST or TRACE
def migration_guide(request: HttpRequest) -> HttpResponse:
    """The page ``MIGRATION_GUIDE`` names: from v1 (and v0) to v2."""
    table = get_version_table()
    versions = {version.name: version for version in (table.versions if table else [])}
    return render(
        request,
        "billing/migrating-to-v2.html",
        {
            "title": settings.SPECTACULAR_SETTINGS["TITLE"],
            "v1": versions.get("v1"),
            "v0": versions.get("v0"),
            "docs": reverse("api_conventions_openapi:docs"),
            "schema": reverse("api_conventions_openapi:schema"),
        },
    )
