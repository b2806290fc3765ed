"""Lists whose filters are django-filter FilterSets under StrictFilterBackend: one FilterSet using
each django-filter feature people use, and a view with ``filterset_fields``."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.urls import include, path
from rest_framework import viewsets
from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import SearchMixin, StrictFilterBackend, StrictQueryParametersMixin
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Customer, Invoice
from testproject.billing.serializers import InvoiceSerializer
from testproject.billing.views import NewestFirst
from testproject.urls import handler400, handler403, handler404, handler500


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):  # type: ignore[misc]
    pass


class NumberRangeFilter(django_filters.BaseRangeFilter, django_filters.NumberFilter):  # type: ignore[misc]
    pass


class InvoiceFeatures(django_filters.FilterSet):  # type: ignore[misc]
    user = django_filters.ModelChoiceFilter(queryset=Customer.objects.all())
    status = django_filters.MultipleChoiceFilter(choices=Invoice.Status.choices)
    currency = CharInFilter(field_name="currency")
    amount_between = NumberRangeFilter(field_name="amount_due")
    created = django_filters.DateFromToRangeFilter(field_name="created_at")
    email = django_filters.CharFilter(method="by_email", help_text="The user's email, in any case.")
    not_status = django_filters.ChoiceFilter(field_name="status", exclude=True, choices=Invoice.Status.choices)
    paid = django_filters.BooleanFilter(method="by_paid")

    class Meta:
        model = Invoice
        fields = {"amount_due": ["gte", "lte"]}

    def by_email(self, queryset: QuerySet[Invoice], name: str, value: str) -> QuerySet[Invoice]:
        return queryset.filter(user__email__iexact=value)

    def by_paid(self, queryset: QuerySet[Invoice], name: str, value: bool) -> QuerySet[Invoice]:
        return queryset.filter(status="paid") if value else queryset.exclude(status="paid")


class Strict(StrictQueryParametersMixin, SearchMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    pagination_class = NewestFirst
    filter_backends = [StrictFilterBackend]


class FeatureInvoices(Strict):
    filterset_class = InvoiceFeatures


class FieldInvoices(Strict):
    filterset_fields: Any = ["status", "currency"]


router = SimpleRouter(trailing_slash=False)
router.register("features", FeatureInvoices, basename="features")
router.register("fields", FieldInvoices, basename="fields")

urlpatterns = [
    *versioned_urls(router.urls),
    path("", include("django_api_conventions.urls")),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
