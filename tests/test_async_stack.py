"""The middleware works in an async (ASGI) stack too."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient

from django_api_conventions.maintenance.switches import write_switch

pytestmark = pytest.mark.django_db(transaction=True)


def test_problems_and_trace_ids_under_asgi() -> None:
    response = async_to_sync(AsyncClient().get)("/no/such/route", headers={"X-Request-ID": "async-1"})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response["X-Request-ID"] == "async-1"
    assert response.json()["trace_id"] == "async-1"


def test_maintenance_under_asgi() -> None:
    write_switch(True, 42)
    response = async_to_sync(AsyncClient().get)("/v2/users")
    assert response.status_code == 503 and response["Retry-After"] == "42"
