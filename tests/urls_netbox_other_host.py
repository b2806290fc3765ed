"""The URLconf of a second host of the NetBox-shaped project (set as ``request.urlconf`` by a
middleware, as django-hosts does): its API breaks the URL conventions in three places, and it
leaves Django's error handlers as they are."""

from __future__ import annotations

from django.urls import include, path
from rest_framework import routers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from .urls_netbox_shaped import ObjectViewSet


class DataSourceViewSet(ObjectViewSet):
    @action(detail=True, methods=["post"])
    def sync(self, request: Request, pk: str | None = None) -> Response:
        return Response({})


class ExportJobViewSet(ObjectViewSet):
    @action(detail=True, methods=["post"], url_path="cancel")
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        return Response({})


portal = routers.DefaultRouter()
portal.register("data-sources", DataSourceViewSet, basename="data-sources")
portal.register("export-jobs", ExportJobViewSet, basename="export-jobs")
portal.register("report", ObjectViewSet, basename="report")

urlpatterns = [path("api/portal/", include(portal.urls))]
