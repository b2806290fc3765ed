"""A strict list whose django-filter FilterSet has an ``OrderingFilter``: check E040, and a 500."""

from __future__ import annotations

import django_filters
from django.urls import include, path

from django_api_conventions.versioning import versioned_urls
from testproject.urls import handler400, handler403, handler404, handler500

from .urls_django_filters import Strict


class Ordered(django_filters.FilterSet):  # type: ignore[misc]
    order = django_filters.OrderingFilter(fields=["amount_due"])


class OrderedInvoices(Strict):
    filterset_class = Ordered


urlpatterns = [
    *versioned_urls([path("ordered", OrderedInvoices.as_view({"get": "list"}), name="ordered")]),
    path("", include("django_api_conventions.urls")),
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
