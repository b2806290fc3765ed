"""Three lists of the example service's orders, one per paginator, for the pagination benchmark.

Everything but the paginator is the same: queryset, serializer, no throttling, no filters. DRF's
paginators get the configuration their documentation shows (``ordering = "-created_at"``).
"""

from __future__ import annotations

from rest_framework import generics
from rest_framework.pagination import CursorPagination, LimitOffsetPagination

from testproject.billing.models import Order
from testproject.billing.serializers import OrderSerializer
from testproject.billing.views import NewestFirst


class DRFCursor(CursorPagination):
    ordering = "-created_at"
    page_size = 20
    page_size_query_param = "limit"
    max_page_size = 100


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


#: URL name suffix -> view; ``keyset`` is the package's, the others are the baselines.
PAGINATED_VIEWS = {"keyset": KeysetOrders, "cursor": CursorOrders, "limitoffset": LimitOffsetOrders}
