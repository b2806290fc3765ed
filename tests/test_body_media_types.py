"""A body that is not JSON is a 415 on every JSON endpoint of the example, keyed or not, an empty
multipart or form body included, and a refused keyed request stores nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from django_api_conventions.conf import api_settings
from django_api_conventions.idempotency.stores.redis import KEY_PREFIX, RedisStore
from django_api_conventions.models import IdempotencyRecord
from testproject.billing.models import Customer, Invoice, Order, Payment

from .http import HTTPResult, send
from .problem_assertions import assert_problem

pytestmark = pytest.mark.django_db(transaction=True)

FORM = "application/x-www-form-urlencoded"
#: Each endpoint's fields as a form would send them: read as form data, each would be accepted.
FIELDS = {
    "/v2/users": {"email": "form@example.com", "name": "Form"},
    "/v2/invoices": {"user_id": "{user}", "amount_due": "100", "currency": "eur"},
    "/v2/orders": {"user_id": "{user}"},
    "/v2/invoices/{invoice}/payments": {"amount": "100", "currency": "eur"},
}
JSON_BODIES = {
    "/v2/users": '{"email": "json-{key}@example.com", "name": "JSON"}',
    "/v2/invoices": '{"user_id": "{user}", "amount_due": 100, "currency": "eur"}',
    "/v2/orders": '{"user_id": "{user}"}',
    "/v2/invoices/{invoice}/payments": '{"amount": 100, "currency": "eur"}',
}


def bodies(fields: dict[str, str]) -> dict[str, tuple[str, bytes]]:
    """Content-Type and body of each kind of non-JSON body, by name."""
    form = "&".join(f"{name}={value}" for name, value in fields.items())
    return {
        "multipart": (MULTIPART_CONTENT, encode_multipart(BOUNDARY, fields)),
        "form": (FORM, form.encode()),
        "empty-multipart": (MULTIPART_CONTENT, b""),
        "empty-form": (FORM, b""),
        "text": ("text/plain", b""),
    }


@pytest.fixture
def invoice() -> Invoice:
    customer = Customer.objects.create(email="payer@example.com", name="Payer")
    return Invoice.objects.create(user=customer, amount_due=10_000, currency="eur")


def fill(template: str, invoice: Invoice, key: str = "") -> str:
    return template.replace("{user}", invoice.user_id).replace("{invoice}", invoice.pk).replace("{key}", key)


def stored_records() -> int:
    """Idempotency records of every client, in the configured store."""
    if api_settings.IDEMPOTENCY_STORE == "redis":
        return len(RedisStore().client.keys(KEY_PREFIX + "*"))
    return IdempotencyRecord.objects.count()


def business_rows() -> tuple[int, ...]:
    return Customer.objects.count(), Invoice.objects.count(), Payment.objects.count(), Order.objects.count()


def post(base_url: str, path: str, content_type: str, body: bytes, key: str | None = None) -> HTTPResult:
    headers = {"Content-Type": content_type, "X-Client-ID": "media-types"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return send(base_url, "POST", path, body=body, headers=headers)


def assert_refused(result: HTTPResult, content_type: str) -> None:
    body = assert_problem(result, 415, "unsupported-media-type")
    assert body["detail"].startswith(f'Unsupported media type "{content_type}" in request.'), body["detail"]
    assert body["detail"].endswith("Accepted: application/json, any type ending in +json."), body["detail"]


@pytest.mark.parametrize("kind", ["multipart", "form", "empty-multipart", "empty-form", "text"])
@pytest.mark.parametrize("endpoint", list(FIELDS))
def test_a_body_that_is_not_json_is_415_without_a_key(
    live_server: Any, invoice: Invoice, endpoint: str, kind: str
) -> None:
    fields = {name: fill(value, invoice) for name, value in FIELDS[endpoint].items()}
    content_type, body = bodies(fields)[kind]
    before = business_rows()
    assert_refused(post(live_server.url, fill(endpoint, invoice), content_type, body), content_type)
    assert business_rows() == before


@pytest.mark.parametrize("kind", ["multipart", "form", "empty-multipart", "empty-form", "text"])
@pytest.mark.parametrize("endpoint", ["/v2/users", "/v2/invoices/{invoice}/payments"])
def test_a_keyed_body_that_is_not_json_is_415_and_stores_nothing(
    live_server: Any, example_store: str, invoice: Invoice, endpoint: str, kind: str
) -> None:
    fields = {name: fill(value, invoice) for name, value in FIELDS[endpoint].items()}
    content_type, body = bodies(fields)[kind]
    path, key = fill(endpoint, invoice), str(uuid.uuid4())
    before, records = business_rows(), stored_records()
    assert_refused(post(live_server.url, path, content_type, body, key), content_type)
    assert (business_rows(), stored_records()) == (before, records)  # not even a claim
    # The key is still free: the same key with the JSON body runs the view.
    json_body = fill(JSON_BODIES[endpoint], invoice, key).encode()
    answer = post(live_server.url, path, "application/json", json_body, key)
    assert answer.status == 201, answer.body[:300]
    assert answer.header("Idempotent-Replayed") == "false"


@pytest.mark.parametrize("key", [None, "upload-key"])
def test_an_endpoint_that_reads_multipart_takes_an_empty_multipart_body(live_server: Any, key: str | None) -> None:
    # Its own rules answer (a tag is required), not the media type.
    result = post(live_server.url, "/faults/uploads/attachments", MULTIPART_CONTENT, b"", key)
    body = assert_problem(result, 422, "validation-error")
    assert [error["pointer"] for error in body["errors"]] == ["/tag"]
