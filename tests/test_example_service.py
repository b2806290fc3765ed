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
    unknown_user = client.post(
        "/v2/invoices", {"user_id": "usr_nope", "amount_due": 1, "currency": "eur"}, format="json"
    )
    assert unknown_user.status_code == 422
    assert unknown_user.json()["errors"][0]["pointer"] == "/user_id"
    user = create(client, "/v2/users", {"email": "bob@example.com", "name": "Bob"})
    bad_currency = client.post(
        "/v2/invoices", {"user_id": user["id"], "amount_due": 1, "currency": "EUR"}, format="json"
    )
    assert bad_currency.json()["errors"][0]["code"] == "invalid_currency"
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 100, "currency": "eur"})
    mismatch = client.post(
        f"/v2/invoices/{invoice['id']}/payments",
        {"amount": 100, "currency": "usd"},
        format="json",
        headers={"Idempotency-Key": "k1"},
    )
    assert mismatch.status_code == 422 and mismatch.json()["errors"][0]["pointer"] == "/currency"
    create(client, f"/v2/invoices/{invoice['id']}/payments", {"amount": 100, "currency": "eur"})
    paid = client.post(
        f"/v2/invoices/{invoice['id']}/payments",
        {"amount": 1, "currency": "eur"},
        format="json",
        headers={"Idempotency-Key": "k2"},
    )
    assert paid.status_code == 422 and paid.json()["errors"][0]["code"] == "not_payable"


def test_payment_on_a_missing_invoice_is_404(client: APIClient) -> None:
    response = client.post(
        "/v2/invoices/inv_nope/payments",
        {"amount": 1, "currency": "eur"},
        format="json",
        headers={"Idempotency-Key": "k3"},
    )
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


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        # Each was taken as 10, 1000, 12 or 12: an amount altered, never refused.
        ("9.9999999999999999999", "Must be an integer; 9.9999999999999999999 is not."),
        ("399.5", "Must be an integer; 399.5 is not."),
        ('"1_000"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "1_000" is not.'),
        (
            '"\u0661\u0662"',
            'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; "\u0661\u0662" is not.',
        ),
        ('" 12"', 'Must be an integer: a JSON number, or a string of ASCII digits such as "1000"; " 12" is not.'),
    ],
)
def test_amounts_are_never_rounded_or_reinterpreted(client: APIClient, raw: str, detail: str) -> None:
    user = create(client, "/v2/users", {"email": "dee@example.com", "name": "Dee"})
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 5000, "currency": "eur"})
    bodies = {
        "/v2/invoices": (f'{{"user_id": "{user["id"]}", "amount_due": {raw}, "currency": "eur"}}', "/amount_due"),
        "/v2/invoices ": (f'{{"user_id": "{user["id"]}", "total": {raw}, "currency": "eur"}}', "/total"),
        f"/v2/invoices/{invoice['id']}/payments": (f'{{"amount": {raw}, "currency": "eur"}}', "/amount"),
    }
    for path, (body, pointer) in bodies.items():
        answer = client.generic(
            "POST", path.strip(), body, content_type="application/json", headers={"Idempotency-Key": uuid.uuid4().hex}
        )
        assert answer.status_code == 422, answer.content
        assert answer.json()["errors"] == [{"pointer": pointer, "detail": detail, "code": "not_an_integer"}]
    assert client.get(f"/v2/invoices/{invoice['id']}/payments").json()["data"] == []


@pytest.mark.parametrize(("raw", "amount"), [("500", 500), ('"500"', 500), ("500.0", 500), ("5e2", 500)])
def test_amounts_spelt_as_json_integers_are_accepted(client: APIClient, raw: str, amount: int) -> None:
    user = create(client, "/v2/users", {"email": "eve@example.com", "name": "Eve"})
    for name in ("amount_due", "total"):
        body = f'{{"user_id": "{user["id"]}", "{name}": {raw}, "currency": "eur"}}'
        answer = client.generic("POST", "/v2/invoices", body, content_type="application/json")
        assert answer.status_code == 201 and answer.json()["amount_due"] == amount


def test_both_names_of_the_amount_are_compared_exactly(client: APIClient) -> None:
    user = create(client, "/v2/users", {"email": "fay@example.com", "name": "Fay"})
    body = f'{{"user_id": "{user["id"]}", "amount_due": 10.0, "total": 9.9999999999999999999, "currency": "eur"}}'
    answer = client.generic("POST", "/v2/invoices", body, content_type="application/json")
    assert answer.status_code == 422 and answer.json()["errors"][0]["code"] == "rename_conflict"


@pytest.mark.parametrize("currency", [" eur ", "eur\n", "\teur", "eur "])
def test_a_currency_is_not_trimmed_into_a_valid_one(client: APIClient, currency: str) -> None:
    user = create(client, "/v2/users", {"email": "gus@example.com", "name": "Gus"})
    invoice = create(client, "/v2/invoices", {"user_id": user["id"], "amount_due": 100, "currency": "eur"})
    for path, body in (
        ("/v2/invoices", {"user_id": user["id"], "amount_due": 1, "currency": currency}),
        (f"/v2/invoices/{invoice['id']}/payments", {"amount": 1, "currency": currency}),
    ):
        answer = client.post(path, body, format="json", headers={"Idempotency-Key": uuid.uuid4().hex})
        assert answer.status_code == 422, answer.content
        assert answer.json()["errors"] == [
            {
                "pointer": "/currency",
                "code": "invalid_currency",
                "detail": "Use a lower-case ISO 4217 code such as 'eur'.",
            }
        ]
