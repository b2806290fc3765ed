"""The example service's endpoints."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Sum
from django.shortcuts import get_object_or_404
from rest_framework import generics, mixins, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from django_api_conventions.idempotency import IdempotencyMixin
from django_api_conventions.pagination import KeysetPagination, SearchMixin, StrictQueryParametersMixin
from django_api_conventions.pagination.filters import TimestampFilter
from django_api_conventions.soft_delete.views import SoftDeleteDestroyMixin

from . import gateway
from .models import Customer, Invoice, Order, Payment
from .serializers import InvoiceSerializer, OrderSerializer, PaymentSerializer, UserSerializer


class NewestFirst(KeysetPagination):
    ordering = ("-created_at", "-pk")


class InvoiceSorts(KeysetPagination):
    """``sort``: newest first by default; each sort is served by an index (check E015)."""

    sorts = {
        "-created_at": ("-created_at",),
        "created_at": ("created_at",),
        "-amount_due": ("-amount_due",),
        "amount_due": ("amount_due",),
    }
    default_sort = "-created_at"


class CreatedRange(django_filters.FilterSet):  # type: ignore[misc]
    """``created_after`` and ``created_before``: ISO 8601 moments, the bounds excluded."""

    created_after = TimestampFilter(field_name="created_at", lookup_expr="gt")
    created_before = TimestampFilter(field_name="created_at", lookup_expr="lt")


class UserFilters(CreatedRange):
    pass


class StatusInFilter(django_filters.BaseInFilter, django_filters.ChoiceFilter):  # type: ignore[misc]
    """Comma-separated choices, or the parameter repeated: ``status=pending,shipped``."""


class InvoiceFilters(CreatedRange):
    status = StatusInFilter(field_name="status", choices=Invoice.Status.choices, help_text="Comma-separated statuses.")
    # strip=False: the id as it is written; a Django CharField would trim white space around it.
    user_id = django_filters.CharFilter(field_name="user_id", strip=False)


class OrderFilters(CreatedRange):
    status = StatusInFilter(field_name="status", choices=Order.Status.choices, help_text="Comma-separated statuses.")
    user_id = django_filters.CharFilter(field_name="user_id", strip=False)


class CreateWithLocationMixin:
    """POST answers 201 with the created resource and its ``Location``."""

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        response = super().create(request, *args, **kwargs)  # type: ignore[misc]
        response["Location"] = request.build_absolute_uri(f"{request.path.rstrip('/')}/{response.data['id']}")
        return response


# StrictQueryParametersMixin on every view: an undeclared query parameter is a 400 on every
# method, a POST included, not only on the lists StrictFilterBackend guards.


class UserViewSet(
    IdempotencyMixin,
    StrictQueryParametersMixin,
    CreateWithLocationMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    queryset = Customer.objects.all()
    serializer_class = UserSerializer
    pagination_class = NewestFirst
    filterset_class = UserFilters


class InvoiceViewSet(
    IdempotencyMixin,
    StrictQueryParametersMixin,
    SearchMixin,
    SoftDeleteDestroyMixin,
    CreateWithLocationMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    """Invoices: DELETE is a soft delete; ``POST /v2/invoices/search`` ORs filter objects, and
    ``QUERY /v2/invoices`` (RFC 10008) takes the same body (SearchMixin)."""

    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer
    pagination_class = InvoiceSorts
    filterset_class = InvoiceFilters


class OrderViewSet(
    IdempotencyMixin,
    StrictQueryParametersMixin,
    CreateWithLocationMixin,
    mixins.CreateModelMixin,
    viewsets.ReadOnlyModelViewSet,
):
    queryset = Order.objects.all()
    serializer_class = OrderSerializer
    pagination_class = NewestFirst
    filterset_class = OrderFilters


class InvoicePaymentList(IdempotencyMixin, StrictQueryParametersMixin, generics.ListCreateAPIView):
    """``/v2/invoices/{id}/payments``: a payment that covers ``amount_due`` marks the invoice paid.

    Creating a payment requires an ``Idempotency-Key``: a retried charge must never run twice.
    """

    idempotency_required = True
    serializer_class = PaymentSerializer
    pagination_class = NewestFirst

    def get_invoice(self, *, for_update: bool = False) -> Invoice:
        invoices = Invoice.objects.select_for_update() if for_update else Invoice.objects.all()
        return get_object_or_404(invoices, pk=self.kwargs["invoice_id"])

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return Payment.objects.filter(invoice=self.get_invoice())

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        invoice = self.invoice = self.get_invoice(for_update=True)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        status = gateway.charge(serializer.validated_data["amount"], invoice.currency)
        payment = serializer.save(invoice=invoice, status=status)
        paid = invoice.payments.aggregate(total=Sum("amount"))["total"] or 0
        if paid >= invoice.amount_due:
            invoice.status = Invoice.Status.PAID
            invoice.save(update_fields=["status"])
        response = Response(self.get_serializer(payment).data, status=201)
        response["Location"] = request.build_absolute_uri(f"{request.path}/{payment.payment_id}")
        return response

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "invoice": getattr(self, "invoice", None)}


class InvoicePaymentDetail(StrictQueryParametersMixin, generics.RetrieveAPIView):
    """One payment of an invoice."""

    serializer_class = PaymentSerializer
    lookup_field = "payment_id"

    def get_queryset(self):  # type: ignore[no-untyped-def]
        # Invoice.objects: the payments of a deleted invoice are gone with it.
        return Payment.objects.filter(invoice__in=Invoice.objects.filter(pk=self.kwargs["invoice_id"]))
