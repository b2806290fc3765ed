"""The example service's resources, as a client uses them."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "tests"})


def create(client: APIClient, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, payload, format="json", headers={"Idempotency-Key": uuid.uuid4().hex})
    assert response.status_code == 201, response.content
    assert response["Location"].endswith(f"{path}/{response.json().get('id') or response.json()['payment_id']}")
    return dict(response.json())


def test_users_invoices_orders_and_payments(client: APIClient) -> None:
    user = create(client, "/v2/users", {"email": "ada@example.com", "name": "Ada"})
    assert user["id"].startswith("usr_")
    assert client.get(f"/v2/users/{user['id']}").json() == user
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 500, "currency": "eur"})
    assert invoice["status"] == "open"
    order = create(client, "/v2/orders", {"user_id": user["id"]})
    assert order["status"] == "pending"
    first = create(client, f"/v2/invoices/{invoice['id']}/payments", {"amount": 200, "currency": "eur"})
    assert first["status"] == "succeeded" and first["invoice_id"] == invoice["id"]
    assert client.get(f"/v2/invoices/{invoice['id']}").json()["status"] == "open"
    create(client, f"/v2/invoices/{invoice['id']}/payments", {"amount": 300, "currency": "eur"})
    assert client.get(f"/v2/invoices/{invoice['id']}").json()["status"] == "paid"
    assert len(client.get(f"/v2/invoices/{invoice['id']}/payments").json()["data"]) == 2


def test_broken_rules_are_422(client: APIClient) -> None:
    unknown_user = client.post("/v2/invoices", {"user_id": "usr_nope", "amount_due": 1, "currency": "eur"},
                               format="json")
    assert unknown_user.status_code == 422
    assert unknown_user.json()["errors"][0]["pointer"] == "/user_id"
    user = create(client, "/v2/users", {"email": "bob@example.com", "name": "Bob"})
    bad_currency = client.post("/v2/invoices", {"user_id": user["id"], "amount_due": 1, "currency": "EUR"},
                               format="json")
    assert bad_currency.json()["errors"][0]["code"] == "invalid_currency"
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 100, "currency": "eur"})
    mismatch = client.post(f"/v2/invoices/{invoice['id']}/payments", {"amount": 100, "currency": "usd"},
                           format="json", headers={"Idempotency-Key": "k1"})
    assert mismatch.status_code == 422 and mismatch.json()["errors"][0]["pointer"] == "/currency"
    create(client, f"/v2/invoices/{invoice['id']}/payments", {"amount": 100, "currency": "eur"})
    paid = client.post(f"/v2/invoices/{invoice['id']}/payments", {"amount": 1, "currency": "eur"}, format="json",
                       headers={"Idempotency-Key": "k2"})
    assert paid.status_code == 422 and paid.json()["errors"][0]["code"] == "not_payable"


def test_payment_on_a_missing_invoice_is_404(client: APIClient) -> None:
    response = client.post("/v2/invoices/inv_nope/payments", {"amount": 1, "currency": "eur"}, format="json",
                           headers={"Idempotency-Key": "k3"})
    assert response.status_code == 404


def test_gateway_delay_knob(client: APIClient, settings: Any) -> None:
    import time

    settings.PAYMENT_GATEWAY_DELAY_MS = 50
    user = create(client, "/v2/users", {"email": "cy@example.com", "name": "Cy"})
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 100, "currency": "eur"})
    started = time.monotonic()
    create(client, f"/v2/invoices/{invoice['id']}/payments", {"amount": 100, "currency": "eur"})
    assert time.monotonic() - started >= 0.05


def test_a_method_the_keyed_view_lacks_is_405_not_a_missing_key(client: APIClient) -> None:
    # Payments require a key for POST; a PATCH there must still be a 405 with Allow.
    answer = client.patch("/v2/invoices/inv_x/payments", {}, format="json")
    assert answer.status_code == 405 and answer["Content-Type"] == "application/problem+json"
    assert "POST" in answer["Allow"]


@pytest.mark.parametrize("moment", ["0031-09-06T04:06:18-22:25", "2026-01-31T12:00:00+23:59", "2026-01-31T12:00:00"])
def test_any_iso_8601_offset_filters_without_a_database_error(client: APIClient, moment: str) -> None:
    # PostgreSQL refuses offsets beyond 15:59 in a literal; the filter hands it UTC (Schemathesis found it).
    answer = client.get("/v2/invoices", {"created_after": moment})
    assert answer.status_code == 200, answer.content
    search = client.post("/v2/invoices/search", {"any": [{"created_before": moment}]}, format="json")
    assert search.status_code == 200, search.content
