"""Lists whose serializers read parameters of their own, as projects write them: ``expand``
repeated, an ``attr[<key>]`` family, a repeatable ``tag[<key>]`` family, declared on the view;
and boolean filters with each widget django-filter and Django give them."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.urls import include, path
from django_filters import rest_framework as rest_filters
from rest_framework import generics, serializers, viewsets
from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import SearchMixin, StrictFilterBackend, StrictQueryParametersMixin
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Invoice
from testproject.billing.views import NewestFirst
from testproject.urls import handler400, handler403, handler404, handler500


def _paid(queryset: QuerySet[Invoice], name: str, value: bool | None) -> QuerySet[Invoice]:
    paid = Q(status=Invoice.Status.PAID)
    return queryset.filter(paid) if value else queryset.exclude(paid)


class InvoiceFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    status = django_filters.MultipleChoiceFilter(choices=Invoice.Status.choices)
    currency = django_filters.CharFilter()
    # django-filter's DRF BooleanFilter (BooleanWidget): true/false/1/0, in any letter case.
    paid = rest_filters.BooleanFilter(method=_paid)
    # django-filter's own BooleanFilter (Django's NullBooleanSelect): true/false/True/False.
    settled = django_filters.BooleanFilter(method=_paid)
    # A checkbox, as HTML forms send it: CheckboxInput reads any other text as true.
    only_paid = django_filters.BooleanFilter(method="only_paid_ones", widget=forms.CheckboxInput)

    def only_paid_ones(self, queryset: QuerySet[Invoice], name: str, value: bool) -> QuerySet[Invoice]:
        # CheckboxInput reads an absent parameter as False: only True filters.
        return _paid(queryset, name, value) if value else queryset


class InvoiceSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Invoice
        fields = ["id", "status", "currency"]


class ExpandingInvoices(SearchMixin, StrictQueryParametersMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.order_by("-created_at", "-id")
    serializer_class = InvoiceSerializer
    pagination_class = NewestFirst
    filter_backends = [StrictFilterBackend]
    filterset_class = InvoiceFilterSet
    extra_query_params = (
        {"name": "expand", "repeatable": True, "description": "Related objects to embed."},
        "attr[*]",
        {"name": "tag[*]", "repeatable": True},
        # A filter's name: the filter keeps its own rule (sent once).
        {"name": "currency", "repeatable": True},
    )


class UnfilteredInvoices(generics.ListAPIView):  # type: ignore[type-arg]
    """The strict backend without a FilterSet: the project's parameters only."""

    queryset = Invoice.objects.order_by("-created_at", "-id")
    serializer_class = InvoiceSerializer
    filter_backends = [StrictFilterBackend]


router = SimpleRouter(trailing_slash=False)
router.register("expanding-invoices", ExpandingInvoices, basename="expanding-invoices")
urlpatterns = [
    *versioned_urls(
        [*router.urls, path("unfiltered-invoices", UnfilteredInvoices.as_view(), name="unfiltered-invoices")]
    ),
    path("", include("django_api_conventions.urls")),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
