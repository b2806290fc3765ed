"""Declared sorts without an index (check E015), and one a transform's expression index serves."""

from django.urls import path
from rest_framework.generics import ListAPIView

from django_api_conventions.pagination import KeysetPagination
from testproject.billing.models import Invoice


class ClientSorts(KeysetPagination):
    sorts = {
        "-created_at": ("-created_at",),  # invoice_newest_first
        "amount_due": ("amount_due",),  # invoice_amount_due, read backwards
        "status": ("status",),  # no index
        "-year": ("-created_at__year",),  # an expression index only
    }


class SortableInvoices(ListAPIView):
    queryset = Invoice.objects.all()
    pagination_class = ClientSorts


class BadCount(KeysetPagination):
    count = "exact"


class CountingInvoices(ListAPIView):
    queryset = Invoice.objects.all()
    pagination_class = BadCount


class BadDefault(ClientSorts):
    default_sort = "-total"


class DefaultlessInvoices(ListAPIView):
    queryset = Invoice.objects.all()
    pagination_class = BadDefault


urlpatterns = [
    path("invoices", SortableInvoices.as_view()),
    path("counting", CountingInvoices.as_view()),
    path("defaultless", DefaultlessInvoices.as_view()),
]
