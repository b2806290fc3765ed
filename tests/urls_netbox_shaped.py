"""A root URLconf shaped like NetBox's API, which keeps the URL conventions: DRF routers with their
format suffixes, multi-word collections (``export-templates``, ``ip-addresses``), extra views
mounted beside a router's, and ``format_suffix_patterns`` over ``path()`` routes. The URL
convention checks must find nothing here."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from rest_framework import routers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.urlpatterns import format_suffix_patterns
from rest_framework.views import APIView

from testproject.urls import handler400, handler403, handler404, handler500


class ObjectViewSet(viewsets.GenericViewSet):
    """NetBox's base viewset in short: a list and a detail, the project's filter backends."""

    def list(self, request: Request) -> Response:
        return Response([])

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        return Response({})


class DeviceViewSet(ObjectViewSet):
    @action(detail=True, url_path="interfaces")
    def interfaces(self, request: Request, pk: str | None = None) -> Response:
        return Response([])


class AvailableIPAddressesView(APIView):
    def get(self, request: Request, **kwargs: Any) -> Response:
        return Response([])


class StatusView(APIView):
    def get(self, request: Request, **kwargs: Any) -> Response:
        return Response({})


def router(*prefixes: str, viewset: type[viewsets.GenericViewSet] = ObjectViewSet) -> routers.DefaultRouter:
    built = routers.DefaultRouter()  # include_format_suffixes: every route gets a ".json" twin
    for prefix in prefixes:
        built.register(prefix, viewset, basename=prefix)
    return built


extras = router(
    "export-templates",
    "config-contexts",
    "config-context-profiles",
    "custom-field-choice-sets",
    "journal-entries",
    "image-attachments",
    "tagged-objects",
    "import-jobs",
    "sync-sources",
)
ipam = router("ip-addresses", "ip-ranges", "prefixes", "asns", "vlans", "fhrp-group-assignments", "vrfs")
dcim = router("interfaces", "cable-terminations", "mac-addresses", "virtual-chassis", "power-feeds")
dcim.register("devices", DeviceViewSet, basename="devices")

urlpatterns = [
    path("api/extras/", include(extras.urls)),
    path(
        "api/ipam/",
        include(
            [
                path("prefixes/<int:pk>/available-ips/", AvailableIPAddressesView.as_view()),
                path("ip-ranges/<int:pk>/available-ips/", AvailableIPAddressesView.as_view()),
                *ipam.urls,
            ]
        ),
    ),
    path("api/dcim/", include(dcim.urls)),
    *format_suffix_patterns(
        [
            path("api/status/", StatusView.as_view()),
            path("api/ipam/vlan-groups/<int:pk>/available-vlans/", AvailableIPAddressesView.as_view()),
        ],
        allowed=["json", "api"],
    ),
    path("", include("django_api_conventions.urls")),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
