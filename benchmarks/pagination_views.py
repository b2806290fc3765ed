"""Lists of the example service's orders, one per paginator (and per sort or total), for the pagination benchmark.

Everything but the paginator is the same: queryset, serializer, no throttling, no filters. DRF's
paginators get the configuration their documentation shows (``ordering = "-created_at"``).
:class:`SearchableOrders` adds one filter, for the search beside its list (the same rows).
"""

from __future__ import annotations

import django_filters
from rest_framework import generics, mixins, viewsets
from rest_framework.pagination import CursorPagination, LimitOffsetPagination

from django_api_conventions.pagination import KeysetPagination, SearchMixin, StrictFilterBackend
from testproject.billing.models import Order
from testproject.billing.serializers import OrderSerializer
from testproject.billing.views import NewestFirst


class DRFCursor(CursorPagination):
    ordering = "-created_at"
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


class OrderSorts(KeysetPagination):
    """Two declared sorts, both served by the index ``order_newest_first`` (read backwards for
    the oldest first)."""

    sorts = {"-created_at": ("-created_at",), "created_at": ("created_at",)}


class CappedTotal(NewestFirst):
    count = "capped"
    count_cap = 10_000


class EstimatedTotal(NewestFirst):
    count = "estimate"
    count_cap = 10_000


class DRFLimitOffset(LimitOffsetPagination):
    default_limit = 20
    max_limit = 100


class _OrderList(generics.ListAPIView):
    serializer_class = OrderSerializer
    throttle_classes: list = []
    filter_backends: list = []
    versioning_class = None
    authentication_classes: list = []


class KeysetOrders(_OrderList):
    queryset = Order.objects.all()
    pagination_class = NewestFirst


class CursorOrders(_OrderList):
    queryset = Order.objects.all()
    pagination_class = DRFCursor


class LimitOffsetOrders(_OrderList):
    queryset = Order.objects.order_by("-created_at")
    pagination_class = DRFLimitOffset


class SortedOrders(_OrderList):
    queryset = Order.objects.all()
    pagination_class = OrderSorts


class CappedOrders(_OrderList):
    queryset = Order.objects.all()
    pagination_class = CappedTotal


class EstimatedOrders(_OrderList):
    queryset = Order.objects.all()
    pagination_class = EstimatedTotal


class OrderStatus(django_filters.FilterSet):  # type: ignore[misc]
    status = django_filters.ChoiceFilter(field_name="status", choices=Order.Status.choices)


class SearchableOrders(SearchMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """The keyset list with one filter: ``GET ?status=pending`` (the list, through
    ``StrictFilterBackend``) and ``POST .../search`` with ``{"any": [{"status": "pending"}]}``
    (the search, through ``SearchMixin``): the same rows, paginator, serializer and SQL."""

    queryset = Order.objects.all()
    serializer_class = OrderSerializer
    pagination_class = NewestFirst
    filter_backends = [StrictFilterBackend]
    filterset_class = OrderStatus
    throttle_classes: list = []
    versioning_class = None
    authentication_classes: list = []


#: URL name suffix -> view; ``keyset`` is the package's, ``cursor`` and ``limitoffset`` the
#: baselines; the others are the package's with a declared sort or a total.
PAGINATED_VIEWS = {
    "keyset": KeysetOrders,
    "cursor": CursorOrders,
    "limitoffset": LimitOffsetOrders,
    "keyset_sorted": SortedOrders,
    "keyset_capped": CappedOrders,
    "keyset_estimate": EstimatedOrders,
}

#: URL name suffix -> (path, view) of the filtered list and of its search.
SEARCH_VIEWS = {
    "keyset_filtered": ("bench/keyset_filtered", SearchableOrders.as_view({"get": "list"})),
    "search": ("bench/keyset_filtered/search", SearchableOrders.as_view({"post": "search"})),
}
