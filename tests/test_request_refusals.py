"""What the service refuses rather than guesses, through the test client on the example service.

- a ``?format=`` no renderer speaks: 400 naming ``format`` (DRF answers 404);
- a ``Host`` whose port is not a number from 1 to 65535: 400, the bad host echoed nowhere;
- an undeclared query parameter on any method of a ``StrictQueryParametersMixin`` view: 400,
  before the view runs, never stored as an idempotency key's answer.

tests/test_hostile_input.py sends the Host cases over real HTTP (and through gunicorn).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.test import Client
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from django_api_conventions.content.negotiation import FallbackContentNegotiation
from django_api_conventions.models import IdempotencyRecord
from django_api_conventions.problems import ProblemException
from testproject.billing.models import Customer, Invoice, Order, Payment

pytestmark = pytest.mark.django_db(transaction=True)

JSON = "application/json"


@pytest.fixture
def client() -> Client:
    return Client(headers={"X-Client-ID": "refusals"})


@pytest.fixture
def invoice() -> Invoice:
    customer = Customer.objects.create(email="payer@example.com", name="Payer")
    return Invoice.objects.create(user=customer, amount_due=10_000, currency="eur")


def problem(response: Any, status: int, slug: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["type"].endswith(f"/problems/{slug}"), body["type"]
    return body


def rows() -> tuple[int, int, int, int]:
    return Customer.objects.count(), Invoice.objects.count(), Payment.objects.count(), Order.objects.count()


# --- ?format= ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["xml", "api", "yaml", "", "JSON"])
@pytest.mark.parametrize("path", ["/v2/invoices", "/v2/invoices/{invoice}", "/v2/invoices/{invoice}/payments"])
def test_a_format_the_service_does_not_speak_is_400_naming_format(
    client: Client, invoice: Invoice, path: str, value: str
) -> None:
    response = client.get(path.format(invoice=invoice.pk), {"format": value})
    body = problem(response, 400, "invalid-parameters")
    assert body["errors"] == [{"parameter": "format", "detail": "format must be one of: json.", "code": "invalid"}]


def test_a_format_the_service_speaks_still_works(client: Client, invoice: Invoice) -> None:
    assert client.get("/v2/invoices", {"format": "json"}).status_code == 200
    assert client.get(f"/v2/invoices/{invoice.pk}", {"format": "json"}).status_code == 200
    # Repeated, a second value cannot smuggle an unknown format past the first.
    problem(client.get("/v2/invoices?format=json&format=xml"), 400, "invalid-parameters")


def test_an_unknown_format_on_a_post_is_refused_before_the_view_runs(client: Client) -> None:
    before = rows()
    response = client.post("/v2/users?format=xml", {"email": "a@example.com", "name": "A"}, content_type=JSON)
    assert problem(response, 400, "invalid-parameters")["errors"][0]["parameter"] == "format"
    assert rows() == before


def test_the_negotiation_lists_every_format_of_the_view() -> None:
    request = Request(APIRequestFactory().get("/", {"format": "xml"}))
    with pytest.raises(ProblemException) as raised:
        FallbackContentNegotiation().select_renderer(request, [JSONRenderer(), BrowsableAPIRenderer()])
    assert raised.value.status_code == 400
    assert raised.value.errors == [
        {"parameter": "format", "detail": "format must be one of: json, api.", "code": "invalid"}
    ]
    # A URL format suffix names another resource: DRF's 404 stays.
    from django.http import Http404

    with pytest.raises(Http404):
        FallbackContentNegotiation().select_renderer(Request(APIRequestFactory().get("/")), [JSONRenderer()], "xml")


# --- Host ports ---------------------------------------------------------------------------------

OUT_OF_RANGE = "The port of the Host header must be a number from 1 to 65535."
LEADING_ZERO = "The port of the Host header must be written without leading zeros."


@pytest.mark.parametrize(
    ("host", "detail"),
    [
        ("127.0.0.1:99999999999999999999", OUT_OF_RANGE),
        ("127.0.0.1:0", OUT_OF_RANGE),
        ("127.0.0.1:65536", OUT_OF_RANGE),
        ("localhost:100000", OUT_OF_RANGE),
        ("[::1]:0", OUT_OF_RANGE),
        ("127.0.0.1:00", OUT_OF_RANGE),
        ("127.0.0.1:080", LEADING_ZERO),
        ("localhost:065535", LEADING_ZERO),
    ],
)
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_host_port_outside_1_to_65535_is_400_and_echoed_nowhere(
    client: Client, method: str, host: str, detail: str
) -> None:
    before = rows()
    response = client.generic(
        method,
        "/v2/users",
        json.dumps({"email": "h@example.com", "name": "H"}),
        content_type=JSON,
        headers={"Host": host},
    )
    body = problem(response, 400, "invalid-host")
    assert body["detail"] == detail
    assert host not in response.content.decode() and host not in str(response.headers)
    assert rows() == before


@pytest.mark.parametrize(("path", "status"), [("/v0", 410), ("/v0/users", 410), ("/v9/users", 404), ("/nowhere", 404)])
def test_a_problem_answered_before_the_host_check_does_not_echo_the_port_either(
    client: Client, path: str, status: int
) -> None:
    # VersionLifecycleMiddleware answers these before ProblemDetailsMiddleware reads the Host.
    response = client.get(path, headers={"Host": "127.0.0.1:99999999999999999999"})
    assert response.status_code in (status, 400)
    assert "99999" not in response.content.decode() and "99999" not in str(response.headers)


@pytest.mark.parametrize("host", ["127.0.0.1:1", "localhost:8000", "[::1]:65535", "testserver"])
def test_a_host_with_a_valid_port_is_served_and_echoed(client: Client, host: str) -> None:
    response = client.post(
        "/v2/users", {"email": "v@example.com", "name": "V"}, content_type=JSON, headers={"Host": host}
    )
    assert response.status_code == 201, response.content
    assert response["Location"].startswith(f"http://{host}/v2/users/")


# --- undeclared query parameters on every method ------------------------------------------------


def _requests(invoice: Invoice, payment: Payment) -> list[tuple[str, str, dict[str, Any] | None]]:
    return [
        ("POST", "/v2/users", {"email": "new@example.com", "name": "New"}),
        ("GET", f"/v2/users/{invoice.user_id}", None),
        ("POST", "/v2/invoices", {"user_id": invoice.user_id, "amount_due": 1, "currency": "eur"}),
        ("GET", f"/v2/invoices/{invoice.pk}", None),
        ("DELETE", f"/v2/invoices/{invoice.pk}", None),
        ("POST", "/v2/orders", {"user_id": invoice.user_id}),
        ("POST", f"/v2/invoices/{invoice.pk}/payments", {"amount": 1, "currency": "eur"}),
        ("GET", f"/v2/invoices/{invoice.pk}/payments/{payment.payment_id}", None),
        ("POST", "/v1/users", {"email": "old@example.com", "name": "Old"}),
    ]


@pytest.fixture
def payment(invoice: Invoice) -> Payment:
    return Payment.objects.create(invoice=invoice, amount=1, currency="eur", status="succeeded")


@pytest.mark.usefixtures("store_name")
def test_an_undeclared_parameter_is_400_on_every_method_and_nothing_changes(
    client: Client, invoice: Invoice, payment: Payment
) -> None:
    for method, path, payload in _requests(invoice, payment):
        before = rows()
        key = uuid.uuid4().hex
        response = client.generic(
            method,
            f"{path}?foo=1",
            json.dumps(payload) if payload else "",
            content_type=JSON,
            headers={"Idempotency-Key": key},
        )
        body = problem(response, 400, "invalid-parameters")
        detail = "Unknown parameter: this request takes no query parameters."
        assert body["errors"] == [{"parameter": "foo", "code": "unknown", "detail": detail}], (method, path)
        assert rows() == before, (method, path)
        assert not Invoice.all_objects.filter(pk=invoice.pk, deleted_at__isnull=False).exists()
        # The key was not used: the corrected request runs for the first time.
        if method == "POST":
            fixed = client.generic(
                method, path, json.dumps(payload), content_type=JSON, headers={"Idempotency-Key": key}
            )
            assert fixed.status_code == 201, (path, fixed.content)
            assert fixed["X-Cache-Lookup"] == "MISS"


@pytest.mark.usefixtures("store_name")
def test_a_refused_keyed_post_is_never_stored(client: Client, invoice: Invoice) -> None:
    path = f"/v2/invoices/{invoice.pk}/payments"
    refused = client.post(
        f"{path}?amount=5",
        {"amount": 1, "currency": "eur"},
        content_type=JSON,
        headers={"Idempotency-Key": "refused-key"},
    )
    problem(refused, 400, "invalid-parameters")
    assert IdempotencyRecord.objects.count() == 0
    again = client.post(
        f"{path}?amount=5",
        {"amount": 1, "currency": "eur"},
        content_type=JSON,
        headers={"Idempotency-Key": "refused-key"},
    )
    assert again.status_code == 400 and "X-Cache-Lookup" not in again


def test_the_search_and_the_lists_keep_their_own_parameters(client: Client, invoice: Invoice) -> None:
    search = client.post("/v2/invoices/search?foo=1", {"any": [{"status": "open"}]}, content_type=JSON)
    assert problem(search, 400, "invalid-parameters")["errors"][0]["parameter"] == "foo"
    assert (
        client.post("/v2/invoices/search?format=json", {"any": [{"status": "open"}]}, content_type=JSON).status_code
        == 200
    )
    assert client.get("/v2/invoices", {"status": "open", "limit": "5", "format": "json"}).status_code == 200
    assert client.get(f"/v2/invoices/{invoice.pk}/payments", {"limit": "5"}).status_code == 200
    payments = client.get(f"/v2/invoices/{invoice.pk}/payments", {"status": "open"})
    assert problem(payments, 400, "invalid-parameters")["errors"][0]["detail"] == (
        "Unknown parameter. Accepted: cursor, limit."
    )
    assert client.head("/v2/users", {"created_after": "2026-01-01T00:00:00Z"}).status_code == 200
    assert client.head("/v2/users", {"colour": "red"}).status_code == 400


def test_format_is_accepted_on_every_method_but_only_once(client: Client, invoice: Invoice) -> None:
    created = client.post("/v2/users?format=json", {"email": "f@example.com", "name": "F"}, content_type=JSON)
    assert created.status_code == 201
    twice = client.post("/v2/users?format=json&format=json", {"email": "g@example.com", "name": "G"}, content_type=JSON)
    assert problem(twice, 400, "invalid-parameters")["errors"] == [
        {"parameter": "format", "detail": "Send this parameter once.", "code": "repeated"}
    ]


def test_a_method_the_view_does_not_handle_is_405_whatever_its_query(client: Any) -> None:
    """Schemathesis' TRACE with a list's parameters: the 405 comes first."""
    response = client.generic("TRACE", "/v2/users?cursor=x&limit=5&foo=1")
    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
