"""The example's URLs plus ``/v2/orders-reference``: the orders list with the package's own
FilterSet, as it was declared before the orders moved to django-filter (the oracle of
tests/test_orders_filterset.py)."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

from django_api_conventions.pagination import Filter, FilterSet, parse_timestamp
from django_api_conventions.versioning import versioned_urls
from testproject.billing.models import Order
from testproject.billing.views import OrderViewSet
from testproject.urls import handler400, handler403, handler404, handler500
from testproject.urls import urlpatterns as example_urlpatterns


class PackageOrderFilters(FilterSet):
    created_after = Filter("created_at", lookup="gt", parse=parse_timestamp)
    created_before = Filter("created_at", lookup="lt", parse=parse_timestamp)
    status = Filter("status", lookup="in", choices=Order.Status.values, description="Comma-separated statuses.")
    user_id = Filter("user_id")


class ReferenceOrders(OrderViewSet):
    filterset_class = PackageOrderFilters  # type: ignore[assignment]


router = SimpleRouter(trailing_slash=False)
router.register("orders-reference", ReferenceOrders, basename="order-reference")
urlpatterns = [*versioned_urls(router.urls), *example_urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
