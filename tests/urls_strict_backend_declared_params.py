"""A NetBox-shaped list behind StrictFilterBackend: its own paginator (DRF's ``limit``/``offset``
and a ``start`` of its own), DRF's ``OrderingFilter`` after the strict backend, ``brief`` and
``fields`` read by the viewset, a backend subclass passing an argument of its own to the
FilterSet, null filter values, multi-value filters, and a filter on a field its model lacks.

Beside it, the views check W040 names: strict views whose own ``filter_backends`` leave the
strict backend out."""

from __future__ import annotations

from typing import Any, ClassVar

import django_filters
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import include, path
from django_filters.rest_framework import DjangoFilterBackend
from django_filters.widgets import QueryArrayWidget
from rest_framework import filters, generics, serializers, viewsets
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import StrictFilterBackend, StrictQueryParametersMixin
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Customer, Invoice
from testproject.urls import handler400, handler403, handler404, handler500


class StartPagination(LimitOffsetPagination):
    """NetBox's way: DRF's limit and offset, and a ``start`` of its own."""

    default_limit = 50
    start_query_param = "start"

    def get_offset(self, request: Request) -> int:
        start = request.query_params.get(self.start_query_param)
        return int(start) if start is not None else super().get_offset(request)


class ProjectFilterSet(django_filters.FilterSet):  # type: ignore[misc]
    """A project's base FilterSet that takes an argument of its own from its backend."""

    built: ClassVar[int] = 0

    def __init__(self, *args: Any, scope: str | None = None, **kwargs: Any) -> None:
        ProjectFilterSet.built += 1
        self.scope = scope
        super().__init__(*args, **kwargs)

    def filter_queryset(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        queryset = super().filter_queryset(queryset)
        # The argument decides which rows there are: a backend that did not pass it shows it.
        return queryset.exclude(currency="xxx") if self.scope == "project" else queryset.none()


class InvoiceFilterSet(ProjectFilterSet):
    # An integer key, as NetBox's tenant_id (the example's own models have text keys).
    owner_id = django_filters.ModelMultipleChoiceFilter(
        queryset=User.objects.all(), field_name="amount_due", null_label="None"
    )
    user = django_filters.ModelChoiceFilter(queryset=Customer.objects.all(), null_label="None")
    status = django_filters.MultipleChoiceFilter(choices=Invoice.Status.choices)
    currency = django_filters.MultipleChoiceFilter(
        choices=[("eur", "eur"), ("usd", "usd"), ("gbp", "gbp")], widget=QueryArrayWidget
    )
    # A key that is no field of Customer: drf-spectacular describes this filter, not the package.
    user_email = django_filters.ModelChoiceFilter(
        queryset=Customer.objects.all(), field_name="user", to_field_name="email__iexact"
    )
    amount_due = django_filters.NumberFilter()

    class Meta:
        model = Invoice
        fields: list[str] = []


class ProjectFilterBackend(StrictFilterBackend):
    """A project's backend: its FilterSets take ``scope``."""

    def get_filterset_kwargs(self, request: Request, queryset: QuerySet[Any], view: Any) -> dict[str, Any]:
        return {**super().get_filterset_kwargs(request, queryset, view), "scope": "project"}


class BriefInvoiceSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    class Meta:
        model = Invoice
        fields = ["id", "status", "currency", "amount_due"]


class NetBoxInvoices(StrictQueryParametersMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Invoice.objects.order_by("-created_at", "-id")
    pagination_class = StartPagination
    filter_backends = [ProjectFilterBackend, filters.OrderingFilter]
    ordering_fields = ["amount_due", "created_at"]
    filterset_class = InvoiceFilterSet
    extra_query_params = ("brief", "fields", "omit", "exclude")

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("context", self.get_serializer_context())
        serializer = BriefInvoiceSerializer(*args, **kwargs)
        if self.request.query_params.get("brief") == "true":
            child = getattr(serializer, "child", serializer)
            child.fields.pop("amount_due")
            child.fields.pop("currency")
        return serializer


class PlainInvoices(NetBoxInvoices):
    """No ``extra_query_params``: only the ``EXTRA_QUERY_PARAMS`` setting adds names."""

    extra_query_params = ()


# Views check W040 names: strict, yet their own filter_backends leave StrictFilterBackend out.
class BypassingInvoices(StrictQueryParametersMixin, generics.ListAPIView):
    queryset = Invoice.objects.order_by("-created_at", "-id")
    serializer_class = BriefInvoiceSerializer
    pagination_class = StartPagination
    filter_backends = [DjangoFilterBackend, filters.OrderingFilter]
    filterset_fields = ["status"]


class UnfilteredInvoices(StrictQueryParametersMixin, generics.ListAPIView):
    queryset = Invoice.objects.order_by("-created_at", "-id")
    serializer_class = BriefInvoiceSerializer
    filter_backends: list[Any] = []


router = SimpleRouter(trailing_slash=False)
router.register("netbox-invoices", NetBoxInvoices, basename="netbox-invoices")
router.register("plain-invoices", PlainInvoices, basename="plain-invoices")
urlpatterns = [
    *versioned_urls(
        [
            *router.urls,
            path("bypassing-invoices", BypassingInvoices.as_view(), name="bypassing-invoices"),
            path("unfiltered-invoices", UnfilteredInvoices.as_view(), name="unfiltered-invoices"),
        ]
    ),
    path("", include("django_api_conventions.urls")),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
