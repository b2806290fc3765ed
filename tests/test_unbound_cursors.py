"""No unbound cursor, whatever the filter backend: a keyset list filtered by DRF's
DjangoFilterBackend or SearchFilter binds its cursors to the query string, so a cursor replayed
under other filters is a 400, never a page of another list; check W040 names such views
(tests/urls_unbound_cursors.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from django_api_conventions.pagination.checks import check_filter_backends
from testproject.billing.models import Customer, Invoice

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.urls_unbound_cursors")]

START = datetime(2026, 1, 1, tzinfo=UTC)
OTHER_FILTERS = "The cursor was issued for other filters: send the same filters as for the page before."


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "unbound-cursors"})


@pytest.fixture
def invoices() -> list[Invoice]:
    user = Customer.objects.create(email="u@example.com", name="U")
    return [
        Invoice.objects.create(
            user=user,
            amount_due=100 + i,
            currency=["eur", "usd"][i % 2],
            status=["open", "paid"][i // 2 % 2],
            created_at=START + timedelta(minutes=i),
        )
        for i in range(12)
    ]


def next_cursor(client: APIClient, **params: Any) -> str:
    response = client.get("/v2/stock", {**params, "limit": 2})
    assert response.status_code == 200, response.content
    return response.json()["pagination"]["next_cursor"]  # type: ignore[no-any-return]


def test_the_stock_backend_lets_an_undeclared_parameter_through_and_the_check_says_so(
    client: APIClient,
    invoices: list[Invoice],
) -> None:
    response = client.get("/v2/stock", {"statuz": "open", "limit": 100})
    assert response.status_code == 200  # the whole list: what W040 warns of
    assert len(response.json()["data"]) == 12
    warnings = check_filter_backends()
    assert [warning.id for warning in warnings] == ["django_api_conventions.W040"]
    assert warnings[0].msg.startswith(
        "StockInvoices is keyset-paginated but filtered by DjangoFilterBackend, SearchFilter, which cannot refuse"
    )


def test_a_cursor_replayed_under_other_filters_is_400(client: APIClient, invoices: list[Invoice]) -> None:
    cursor = next_cursor(client, status="open")
    same = client.get("/v2/stock", {"status": "open", "limit": 2, "cursor": cursor})
    assert same.status_code == 200
    assert {item["status"] for item in same.json()["data"]} == {"open"}
    for other in ({"status": "paid"}, {}, {"status": "open", "search": "eur"}, {"status": "open", "statuz": "x"}):
        replay = client.get("/v2/stock", {**other, "cursor": cursor})
        assert replay.status_code == 400, (other, replay.content)
        assert replay.json()["errors"] == [{"parameter": "cursor", "detail": OTHER_FILTERS, "code": "invalid"}]


def test_the_limit_and_the_format_are_not_filters(client: APIClient, invoices: list[Invoice]) -> None:
    cursor = next_cursor(client, search="usd")
    for params in ({"limit": 5}, {"limit": 3, "format": "json"}):
        response = client.get("/v2/stock", {"search": "usd", "cursor": cursor, **params})
        assert response.status_code == 200, response.content
        assert {item["currency"] for item in response.json()["data"]} == {"usd"}


def test_the_strict_lists_keep_their_own_binding(settings: Any) -> None:
    settings.ROOT_URLCONF = "testproject.urls"
    assert check_filter_backends() == []
