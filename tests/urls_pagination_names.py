"""Lists that use the extension points a DRF user expects: a paginator with its own parameter
names and limits, and a filter set chosen per action by ``get_filterset_class()``."""

from __future__ import annotations

from typing import Any

import django_filters
from django.urls import include, path
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import KeysetPagination, SearchMixin, StrictQueryParametersMixin
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Invoice
from testproject.billing.serializers import InvoiceSerializer
from testproject.billing.views import InvoiceFilters, NewestFirst
from testproject.urls import handler400, handler403, handler404, handler500


class AfterAndPageSize(KeysetPagination):
    ordering = ("-created_at", "-pk")
    cursor_query_param = "after"
    limit_query_param = "page_size"
    default_limit = 5
    max_limit = 10


class RenamedInvoices(StrictQueryParametersMixin, SearchMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    pagination_class = AfterAndPageSize
    filterset_class = InvoiceFilters


class StatusIn(django_filters.BaseInFilter, django_filters.ChoiceFilter):  # type: ignore[misc]
    pass


class ByStatus(django_filters.FilterSet):  # type: ignore[misc]
    status = StatusIn(field_name="status", choices=Invoice.Status.choices)


class ByUser(django_filters.FilterSet):  # type: ignore[misc]
    user_id = django_filters.CharFilter(field_name="user_id")


class PerActionInvoices(StrictQueryParametersMixin, SearchMixin, viewsets.ReadOnlyModelViewSet):
    """The list filters by status; the search and ``GET .../by-user`` by user only."""

    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    pagination_class = NewestFirst

    def get_filterset_class(self) -> type[django_filters.FilterSet]:
        return ByUser if self.action in ("by_user", "search") else ByStatus

    @action(detail=False, url_path="by-user")
    def by_user(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


router = SimpleRouter(trailing_slash=False)
router.register("renamed", RenamedInvoices, basename="renamed")
router.register("per-action", PerActionInvoices, basename="per-action")
urlpatterns = [*versioned_urls(router.urls), path("", include("django_api_conventions.urls"))]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
