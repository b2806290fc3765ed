"""Keyset lists filtered by other backends than StrictFilterBackend: DRF's SearchFilter and
django-filter's own DjangoFilterBackend, which let undeclared parameters through (check W040)."""

from __future__ import annotations

from django.urls import include, path
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import filters, viewsets
from rest_framework.routers import SimpleRouter

from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Invoice
from testproject.billing.serializers import InvoiceSerializer
from testproject.billing.views import NewestFirst
from testproject.urls import handler400, handler403, handler404, handler500


class StockInvoices(viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    pagination_class = NewestFirst
    filter_backends = [DjangoFilterBackend, filters.SearchFilter]
    filterset_fields = ["status"]
    search_fields = ["currency"]


router = SimpleRouter(trailing_slash=False)
router.register("stock", StockInvoices, basename="stock")
urlpatterns = [*versioned_urls(router.urls), path("", include("django_api_conventions.urls"))]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
