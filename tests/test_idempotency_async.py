"""The idempotency protocol on adrf async views and viewsets, under ASGI (Django's AsyncClient), on
each store: the conformance of ``IdempotencyMixin``'s async path with its sync one."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.db import connections
from django.test import AsyncClient, RequestFactory

from django_api_conventions.idempotency import get_store, signals
from testproject.billing.models import Customer, Invoice, Payment

from .async_views import SyncCustomerViewSet
from .stores import STORES, configure_store

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("store_name")]


@pytest.fixture(params=STORES)
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    yield from configure_store(request, settings)


def new_key() -> str:
    return uuid.uuid4().hex


def post(path: str, body: Any, key: str | None, client_id: str = "acme") -> Any:
    headers = {"X-Client-ID": client_id}
    if key is not None:
        headers["Idempotency-Key"] = key
    # Per request: AsyncClient(headers=...) prefixes its default headers twice (HTTP_HTTP_...).
    return async_to_sync(AsyncClient().post)(path, json.dumps(body), content_type="application/json", headers=headers)


def inspect(key: str) -> str:
    out = StringIO()
    call_command("idempotency_inspect", "client:acme", key, stdout=out)
    return out.getvalue()


def test_a_retry_replays_the_stored_response_without_running_again() -> None:
    key = new_key()
    body = {"email": f"{key}@example.com"}
    first = post("/idempotency/async/create", body, key)
    again = post("/idempotency/async/create", body, key)
    assert first.status_code == again.status_code == 201
    assert first["X-Cache-Lookup"] == "MISS" and again["X-Cache-Lookup"] == "HIT"
    assert again["Idempotent-Replayed"] == "true" and again.content == first.content
    assert again["Location"] == first["Location"]
    assert Customer.objects.filter(email=body["email"]).count() == 1


def test_the_outcome_signals_are_sent() -> None:
    received: list[str] = []
    for name in ("claimed", "replayed", "mismatch"):
        getattr(signals, name).connect(
            lambda name=name, **kw: received.append(name), weak=False, dispatch_uid=f"async-{name}"
        )
    try:
        key = new_key()
        post("/idempotency/async/create", {"email": f"{key}@example.com"}, key)
        post("/idempotency/async/create", {"email": f"{key}@example.com"}, key)
        post("/idempotency/async/create", {"email": f"other-{key}@example.com"}, key)
    finally:
        for name in ("claimed", "replayed", "mismatch"):
            getattr(signals, name).disconnect(dispatch_uid=f"async-{name}")
    assert received == ["claimed", "replayed", "mismatch"]


@pytest.mark.parametrize("policy", ["fail-closed", "fail-open"])
def test_an_unreachable_store(monkeypatch: pytest.MonkeyPatch, settings: Any, policy: str) -> None:
    store_class = type(get_store())

    def unreachable(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise store_class.unavailable_errors[0]("store down")

    monkeypatch.setattr(store_class, "claim", unreachable)
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE_UNAVAILABLE": policy}
    key = new_key()
    response = post("/idempotency/async/create", {"email": f"{key}@example.com"}, key)
    if policy == "fail-open":
        assert response.status_code == 201 and "X-Cache-Lookup" not in response
        assert Customer.objects.filter(email=f"{key}@example.com").count() == 1
    else:
        assert response.status_code == 503 and response.json()["type"].endswith("/idempotency-store-unavailable")
        assert not Customer.objects.filter(email=f"{key}@example.com").exists()


def test_same_key_with_another_body_is_422() -> None:
    key = new_key()
    assert post("/idempotency/async/create", {"email": f"{key}@example.com"}, key).status_code == 201
    other = post("/idempotency/async/create", {"email": f"other-{key}@example.com"}, key)
    assert other.status_code == 422 and other.json()["type"].endswith("/idempotency-key-reused")
    assert not Customer.objects.filter(email=f"other-{key}@example.com").exists()


def test_a_required_key_and_a_malformed_one_are_400() -> None:
    missing = post("/idempotency/async/required", {"email": "r@example.com"}, None)
    assert missing.status_code == 400 and missing.json()["errors"][0]["code"] == "required"
    assert post("/idempotency/async/create", {"email": "r@example.com"}, "x" * 256).status_code == 400
    assert not Customer.objects.filter(email="r@example.com").exists()


def test_unkeyed_requests_run_normally_where_keys_are_optional() -> None:
    response = post("/idempotency/async/create", {"email": "u@example.com"}, None)
    assert response.status_code == 201 and "X-Cache-Lookup" not in response


def test_clients_never_share_keys() -> None:
    key = new_key()
    assert post("/idempotency/async/create", {"email": "a1@example.com"}, key, "a").status_code == 201
    second = post("/idempotency/async/create", {"email": "a1@example.com"}, key, "b")
    assert second.status_code == 400 or second["X-Cache-Lookup"] == "MISS"  # 400: the unique email


def test_a_crash_rolls_back_and_a_retry_runs_again() -> None:
    key = new_key()
    body = {"email": f"{key}@example.com"}
    with pytest.raises(RuntimeError):
        post("/idempotency/async/crash-once", body, key)
    assert not Customer.objects.filter(email=body["email"]).exists(), "the async view's write was rolled back"
    assert "state: failed" in inspect(key)
    retry = post("/idempotency/async/crash-once", body, key)
    assert retry.status_code == 201 and retry["X-Cache-Lookup"] == "MISS"
    assert Customer.objects.filter(email=body["email"]).count() == 1


def test_a_5xx_answer_fails_the_key_and_leaves_no_write() -> None:
    key = new_key()
    body = {"email": f"{key}@example.com"}
    assert post("/idempotency/async/server-error-once", body, key).status_code == 503
    assert not Customer.objects.filter(email=body["email"]).exists()
    retry = post("/idempotency/async/server-error-once", body, key)
    assert retry.status_code == 201 and retry["X-Cache-Lookup"] == "MISS"


def test_a_status_the_view_does_not_keep_releases_the_key_and_its_writes() -> None:
    key = new_key()
    assert (
        post("/idempotency/async/conflict-not-kept", {"email": "c@example.com", "conflict": True}, key).status_code
        == 409
    )
    assert not Customer.objects.filter(email="c@example.com").exists()
    fixed = post("/idempotency/async/conflict-not-kept", {"email": "d@example.com"}, key)
    assert fixed.status_code == 201, "a released key takes another body"


def test_a_lost_lease_rolls_back_the_async_views_write(monkeypatch: pytest.MonkeyPatch, store_name: str) -> None:
    """The async view's ORM writes share the stored response's transaction: when the store refuses
    the completion (another request took the key over), the business change is rolled back."""
    store_class = type(get_store())
    for method in ["complete"] if store_class.transactional else ["renew", "prepare"]:
        monkeypatch.setattr(store_class, method, lambda self, *args, **kwargs: False)
    if not store_class.transactional:
        # A store outside the transaction checks its lease before the commit only once half is used.
        monkeypatch.setattr("django_api_conventions.idempotency.leases.KeyedRequest.lease_half_used", lambda self: True)
    key = new_key()
    response = post("/idempotency/async/create", {"email": f"{key}@example.com"}, key)
    assert response.status_code == 409 and response.json()["type"].endswith("/idempotency-lease-expired")
    assert not Customer.objects.filter(email=f"{key}@example.com").exists()


def test_viewsets() -> None:
    key = new_key()
    first = post("/idempotency/async/viewset", {"email": f"{key}@example.com"}, key)
    again = post("/idempotency/async/viewset", {"email": f"{key}@example.com"}, key)
    assert first.status_code == 201 and again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    listed = async_to_sync(AsyncClient().get)("/idempotency/async/viewset")
    assert listed.status_code == 200 and listed.json() == {"count": 1}


def test_the_mixin_leaves_a_sync_adrf_viewset_sync() -> None:
    assert SyncCustomerViewSet.view_is_async is False
    view = SyncCustomerViewSet.as_view({"post": "create"})
    key = new_key()
    request = RequestFactory().post(
        "/",
        json.dumps({"email": f"{key}@example.com"}),
        content_type="application/json",
        headers={"Idempotency-Key": key, "X-Client-ID": "acme"},
    )
    response = view(request)
    assert response.status_code == 201 and response["X-Cache-Lookup"] == "MISS"


def test_methods_without_keys_keep_atomic_requests(settings: Any) -> None:
    assert settings.DATABASES["default"]["ATOMIC_REQUESTS"]
    Customer.objects.create(email="kept@example.com", name="x")
    with pytest.raises(RuntimeError):
        async_to_sync(AsyncClient().delete)("/idempotency/async/delete?email=kept@example.com&crash=1")
    assert Customer.objects.filter(email="kept@example.com").exists(), "the crashed DELETE was rolled back"
    assert async_to_sync(AsyncClient().delete)("/idempotency/async/delete?email=kept@example.com").status_code == 204
    assert not Customer.objects.filter(email="kept@example.com").exists()


def test_an_async_view_renews_its_lease() -> None:
    key = new_key()
    assert post("/idempotency/async/renews", {"email": f"{key}@example.com"}, key).status_code == 201


def test_answers_before_the_view_store_nothing() -> None:
    key = new_key()
    response = async_to_sync(AsyncClient().post)(
        "/idempotency/async/create",
        b"{",
        content_type="application/json",
        headers={"X-Client-ID": "acme", "Idempotency-Key": key},
    )
    assert response.status_code == 400
    assert get_store().inspect("client:acme", key) is None


def _in_background(path: str, body: Any, key: str) -> tuple[threading.Thread, list[Any]]:
    result: list[Any] = []

    def run() -> None:
        try:
            result.append(post(path, body, key))
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, result


def _wait_until_claimed(key: str) -> None:
    deadline = time.monotonic() + 10
    while get_store().inspect("client:acme", key) is None:
        assert time.monotonic() < deadline, "the first request never claimed its key"
        time.sleep(0.01)


@pytest.mark.postgres
def test_in_flight_twin_gets_409_and_a_waiting_view_gets_the_replay() -> None:
    key = new_key()
    body = {"email": f"{key}@example.com", "delay": 1.0}
    thread, first = _in_background("/idempotency/async/create", body, key)
    _wait_until_claimed(key)
    twin = post("/idempotency/async/create", body, key)
    thread.join()
    assert twin.status_code == 409 and int(twin["Retry-After"]) >= 1
    assert first[0].status_code == 201

    key = new_key()
    body = {"email": f"{key}@example.com", "delay": 1.0}
    thread, first = _in_background("/idempotency/async/waiting", body, key)
    _wait_until_claimed(key)
    waited = post("/idempotency/async/waiting", body, key)
    thread.join()
    assert waited.status_code == 201 and waited["X-Cache-Lookup"] == "HIT" and waited.content == first[0].content
    assert Customer.objects.filter(email=body["email"]).count() == 1


# --- the example service's async endpoint -------------------------------------------------------------


def test_the_example_async_payment_endpoint() -> None:
    user = Customer.objects.create(email=f"{new_key()}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=user, amount_due=150, currency="eur")
    path = f"/v2/invoices/{invoice.pk}/async-payments"
    assert post(path, {"amount": 100, "currency": "eur"}, None).status_code == 400  # the key is required
    key = new_key()
    first = post(path, {"amount": 100, "currency": "eur"}, key)
    again = post(path, {"amount": 100, "currency": "eur"}, key)
    assert first.status_code == 201 and first["X-Cache-Lookup"] == "MISS"
    assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    assert again["Location"] == first["Location"]
    payment = first.json()
    assert payment["invoice_id"] == invoice.pk and payment["status"] == "succeeded"
    assert first["Location"].endswith(f"/v2/invoices/{invoice.pk}/payments/{payment['payment_id']}")
    read = async_to_sync(AsyncClient().get)(first["Location"])
    assert read.status_code == 200 and read.json() == payment
    wrong = post(path, {"amount": 100, "currency": "usd"}, new_key())
    assert wrong.status_code == 422
    assert post(path, {"amount": 50, "currency": "eur"}, new_key()).status_code == 201
    invoice.refresh_from_db()
    assert invoice.status == "paid" and Payment.objects.filter(invoice=invoice).count() == 2
    assert (
        post("/v2/invoices/inv_missing/async-payments", {"amount": 1, "currency": "eur"}, new_key()).status_code == 404
    )


def test_the_example_async_payment_endpoint_refuses_an_undeclared_parameter() -> None:
    user = Customer.objects.create(email=f"{new_key()}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=user, amount_due=150, currency="eur")
    key = new_key()
    refused = post(f"/v2/invoices/{invoice.pk}/async-payments?colour=1", {"amount": 100, "currency": "eur"}, key)
    assert refused.status_code == 400 and "colour" in refused.json()["detail"]
    assert not Payment.objects.filter(invoice=invoice).exists()
    # The 400 came before the claim: the key stays free for the corrected request.
    assert post(f"/v2/invoices/{invoice.pk}/async-payments", {"amount": 100, "currency": "eur"}, key).status_code == 201


def test_the_async_endpoint_under_wsgi() -> None:
    """gunicorn's sync workers serve it too: Django runs the async view in an event loop of its own."""
    from rest_framework.test import APIClient

    user = Customer.objects.create(email=f"{new_key()}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=user, amount_due=1_000, currency="eur")
    client = APIClient(headers={"X-Client-ID": "acme"})
    key = new_key()
    first, again = (
        client.post(
            f"/v2/invoices/{invoice.pk}/async-payments",
            {"amount": 10, "currency": "eur"},
            format="json",
            headers={"Idempotency-Key": key},
        )
        for _ in range(2)
    )
    assert first.status_code == 201 and first["X-Cache-Lookup"] == "MISS"
    assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    assert Payment.objects.filter(invoice=invoice).count() == 1
