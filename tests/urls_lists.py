"""Lists that count (capped, estimated) and sort by a transform, beside the example's invoices."""

from __future__ import annotations

from django.urls import include, path
from rest_framework import viewsets
from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import KeysetPagination, SearchMixin, StrictQueryParametersMixin
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Invoice
from testproject.billing.serializers import InvoiceSerializer
from testproject.billing.views import InvoiceFilters, InvoiceSorts
from testproject.urls import handler400, handler403, handler404, handler500


class CappedCount(InvoiceSorts):
    count = "capped"
    count_cap = 5


class EstimatedCount(InvoiceSorts):
    count = "estimate"
    count_cap = 5


class ByYear(KeysetPagination):
    """A transform: the year of ``created_at``, newest year first, then the amount."""

    sorts = {"-year": ("-created_at__year", "amount_due"), "year": ("created_at__year", "-amount_due")}


class _Invoices(StrictQueryParametersMixin, SearchMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    filterset_class = InvoiceFilters


class CappedInvoices(_Invoices):
    pagination_class = CappedCount


class EstimatedInvoices(_Invoices):
    pagination_class = EstimatedCount


class InvoicesByYear(_Invoices):
    pagination_class = ByYear


router = SimpleRouter(trailing_slash=False)
router.register("capped", CappedInvoices, basename="capped")
router.register("estimated", EstimatedInvoices, basename="estimated")
router.register("by-year", InvoicesByYear, basename="by-year")
urlpatterns = [*versioned_urls(router.urls), path("", include("testproject.urls"))]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
