"""The state the package keeps on a request lives on Django's HttpRequest, so middleware (which
sees it) and DRF code (which sees DRF's Request) read the same values."""

from __future__ import annotations

from types import SimpleNamespace

from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from django_api_conventions.http.request_attributes import (
    ACTIVE_FILTERS,
    TRACE_ID,
    get_state,
    pop_state,
    set_state,
    state_list,
)
from django_api_conventions.pagination import StrictFilterBackend
from django_api_conventions.tracing.trace_ids import assign_trace_id
from testproject.billing.models import Invoice
from testproject.billing.views import InvoiceFilters


def drf_request(path: str = "/v2/invoices") -> Request:
    return Request(APIRequestFactory().get(path))


def test_the_active_filters_a_backend_cleans_are_on_the_django_request_too() -> None:
    request = drf_request("/v2/invoices?status=open")
    view = SimpleNamespace(filterset_class=InvoiceFilters, kwargs={}, paginator=None)
    StrictFilterBackend().filter_queryset(request, Invoice.objects.all(), view)
    assert request._request.active_filters == {"status": ["open"]}  # type: ignore[attr-defined]
    assert request.active_filters == {"status": ["open"]}  # type: ignore[attr-defined]
    assert get_state(request._request, ACTIVE_FILTERS) == {"status": ["open"]}


def test_a_trace_id_assigned_through_drf_is_the_django_request_s() -> None:
    request = drf_request()
    trace_id = assign_trace_id(request)
    assert request._request.trace_id == trace_id  # type: ignore[attr-defined]
    assert request.trace_id == trace_id  # type: ignore[attr-defined]
    assert assign_trace_id(request._request) == trace_id


def test_the_accessors_read_and_write_the_same_attribute_on_either_request() -> None:
    request = drf_request()
    assert get_state(request, TRACE_ID) is None and get_state(request, TRACE_ID, "-") == "-"
    set_state(request, TRACE_ID, "abc")
    assert get_state(request._request, TRACE_ID) == "abc" and "trace_id" not in vars(request)
    state_list(request, "_api_conventions_test").append(1)
    state_list(request._request, "_api_conventions_test").append(2)
    assert pop_state(request, "_api_conventions_test") == [1, 2]
    assert pop_state(request, "_api_conventions_test", []) == []
