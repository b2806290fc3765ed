"""One invoice list behind a django-filter ``FilterSet`` of 50 filters, served twice: through
the package's ``StrictFilterBackend`` and through django-filter's ``DjangoFilterBackend``.

Everything but the backend is the same: view, queryset, serializer, paginator, FilterSet. The
filters mix what a large project declares (NetBox's filter sets, for one): exact values and
their negations, ``icontains`` and friends, comma-separated ``in`` (``BaseInFilter``) and
repeated parameters (``MultipleChoiceFilter``), a ``ModelChoiceFilter`` with django-filter's
``null`` value, date and number ranges, booleans and method filters (a search ``q``).
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import path
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import generics, serializers

from django_api_conventions.pagination import StrictFilterBackend
from testproject.billing.models import Customer, Invoice, Payment
from testproject.billing.views import NewestFirst


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):  # type: ignore[misc]
    """Comma-separated text values: ``id__in=inv_a,inv_b``."""


class NumberInFilter(django_filters.BaseInFilter, django_filters.NumberFilter):  # type: ignore[misc]
    """Comma-separated numbers: ``amount_due__in=100,200``."""


class InvoiceFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """50 filters over the invoice, its customer and its payments."""

    id = django_filters.CharFilter()
    id__n = django_filters.CharFilter(field_name="id", exclude=True)
    id__in = CharInFilter(field_name="id", lookup_expr="in")
    id__ic = django_filters.CharFilter(field_name="id", lookup_expr="icontains")
    id__isw = django_filters.CharFilter(field_name="id", lookup_expr="istartswith")

    status = django_filters.ChoiceFilter(choices=Invoice.Status.choices)
    status__in = django_filters.MultipleChoiceFilter(field_name="status", choices=Invoice.Status.choices)
    status__n = django_filters.MultipleChoiceFilter(field_name="status", choices=Invoice.Status.choices, exclude=True)

    currency = django_filters.CharFilter()
    currency__n = django_filters.CharFilter(field_name="currency", exclude=True)
    currency__ic = django_filters.CharFilter(field_name="currency", lookup_expr="icontains")
    currency__ie = django_filters.CharFilter(field_name="currency", lookup_expr="iexact")
    currency__isw = django_filters.CharFilter(field_name="currency", lookup_expr="istartswith")
    currency__in = CharInFilter(field_name="currency", lookup_expr="in")

    amount_due = django_filters.NumberFilter()
    amount_due__n = django_filters.NumberFilter(field_name="amount_due", exclude=True)
    amount_due__lt = django_filters.NumberFilter(field_name="amount_due", lookup_expr="lt")
    amount_due__lte = django_filters.NumberFilter(field_name="amount_due", lookup_expr="lte")
    amount_due__gt = django_filters.NumberFilter(field_name="amount_due", lookup_expr="gt")
    amount_due__gte = django_filters.NumberFilter(field_name="amount_due", lookup_expr="gte")
    amount_due__in = NumberInFilter(field_name="amount_due", lookup_expr="in")
    amount_due_range = django_filters.RangeFilter(field_name="amount_due")  # _min, _max

    created_at = django_filters.IsoDateTimeFilter()
    created_at__lt = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")
    created_at__lte = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lte")
    created_at__gt = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gt")
    created_at__gte = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_date = django_filters.DateFromToRangeFilter(field_name="created_at")  # _after, _before
    created_on = django_filters.DateFilter(field_name="created_at", lookup_expr="date")
    created_year = django_filters.NumberFilter(field_name="created_at", lookup_expr="year")

    # The customer by primary key, django-filter's "null" standing for none (NetBox's tenant_id).
    user_id = django_filters.ModelChoiceFilter(field_name="user", queryset=Customer.objects.all(), null_label="None")
    user_id__n = django_filters.ModelMultipleChoiceFilter(
        field_name="user", queryset=Customer.objects.all(), exclude=True
    )
    user = django_filters.ModelMultipleChoiceFilter(
        field_name="user__email", to_field_name="email", queryset=Customer.objects.all()
    )
    user__email = django_filters.CharFilter(field_name="user__email", lookup_expr="iexact")
    user__email__n = django_filters.CharFilter(field_name="user__email", lookup_expr="iexact", exclude=True)
    user__email__ic = django_filters.CharFilter(field_name="user__email", lookup_expr="icontains")
    user__email__isw = django_filters.CharFilter(field_name="user__email", lookup_expr="istartswith")
    user__email__iew = django_filters.CharFilter(field_name="user__email", lookup_expr="iendswith")
    user__name = django_filters.CharFilter(field_name="user__name")
    user__name__n = django_filters.CharFilter(field_name="user__name", exclude=True)
    user__name__ic = django_filters.CharFilter(field_name="user__name", lookup_expr="icontains")
    user__name__nic = django_filters.CharFilter(field_name="user__name", lookup_expr="icontains", exclude=True)
    user__name__isw = django_filters.CharFilter(field_name="user__name", lookup_expr="istartswith")
    user__name__empty = django_filters.BooleanFilter(method="filter_name_empty")
    user_created_after = django_filters.IsoDateTimeFilter(field_name="user__created_at", lookup_expr="gte")
    user_created_before = django_filters.IsoDateTimeFilter(field_name="user__created_at", lookup_expr="lte")

    is_paid = django_filters.BooleanFilter(method="filter_is_paid")
    has_payments = django_filters.BooleanFilter(method="filter_has_payments")
    payment_currency = django_filters.CharFilter(method="filter_payment_currency")
    q = django_filters.CharFilter(method="search", label="Search")

    class Meta:
        model = Invoice
        fields: list[str] = []

    def filter_name_empty(self, queryset: QuerySet[Invoice], name: str, value: bool) -> QuerySet[Invoice]:
        return queryset.filter(user__name="") if value else queryset.exclude(user__name="")

    def filter_is_paid(self, queryset: QuerySet[Invoice], name: str, value: bool) -> QuerySet[Invoice]:
        paid = Q(status=Invoice.Status.PAID)
        return queryset.filter(paid) if value else queryset.exclude(paid)

    def filter_has_payments(self, queryset: QuerySet[Invoice], name: str, value: bool) -> QuerySet[Invoice]:
        paid = Exists(Payment.objects.filter(invoice=OuterRef("pk")))
        return queryset.filter(paid if value else ~paid)

    def filter_payment_currency(self, queryset: QuerySet[Invoice], name: str, value: str) -> QuerySet[Invoice]:
        return queryset.filter(Exists(Payment.objects.filter(invoice=OuterRef("pk"), currency=value)))

    def search(self, queryset: QuerySet[Invoice], name: str, value: str) -> QuerySet[Invoice]:
        if not value.strip():
            return queryset
        return queryset.filter(
            Q(id__icontains=value) | Q(user__name__icontains=value) | Q(user__email__icontains=value)
        )


class BenchInvoiceSerializer(serializers.ModelSerializer):
    user_id = serializers.CharField(read_only=True)

    class Meta:
        model = Invoice
        fields = ["id", "user_id", "status", "amount_due", "currency", "created_at"]


class _FilteredInvoices(generics.ListAPIView):
    queryset = Invoice.objects.all()
    serializer_class = BenchInvoiceSerializer
    pagination_class = NewestFirst
    filterset_class = InvoiceFilterSet
    throttle_classes: list[Any] = []
    versioning_class = None
    authentication_classes: list[Any] = []


class StrictInvoices(_FilteredInvoices):
    filter_backends = [StrictFilterBackend]


class DjangoFilterInvoices(_FilteredInvoices):
    filter_backends = [DjangoFilterBackend]


#: Backend name -> the list's path.
PATHS = {"strict": "bench/filters/strict", "django_filter": "bench/filters/django-filter"}

urlpatterns = [
    path(PATHS["strict"], StrictInvoices.as_view(), name="bench-filters-strict"),
    path(PATHS["django_filter"], DjangoFilterInvoices.as_view(), name="bench-filters-django-filter"),
]
