"""The idempotency protocol through the example service and purpose-built views, on each store."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from django_api_conventions.idempotency import signals
from testproject.billing.models import Customer, Invoice, Payment

from .stores import REDIS_STORE_VARIANTS, STORES_AND_PGBOUNCER, configure_store

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("store_name")]


@pytest.fixture(params=STORES_AND_PGBOUNCER)
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Each store, and the database store through PgBouncer (transaction pooling) too."""
    yield from configure_store(request, settings)


@pytest.fixture
def client() -> APIClient:
    return APIClient(headers={"X-Client-ID": "acme"})


def new_key() -> str:
    return uuid.uuid4().hex


def post(client: APIClient, path: str, body: Any, key: str | None, **headers: str) -> Any:
    raw = body if isinstance(body, str) else json.dumps(body)
    if key is not None:
        headers["Idempotency-Key"] = key
    return client.generic("POST", path, raw, content_type="application/json", headers=headers)


@pytest.fixture
def invoice() -> Invoice:
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    return Invoice.objects.create(user=user, amount_due=10_000, currency="eur")


def pay_path(invoice: Invoice) -> str:
    return f"/v2/invoices/{invoice.pk}/payments"


def test_payment_requires_a_key(client: APIClient, invoice: Invoice) -> None:
    response = post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, None)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"header": "Idempotency-Key", "detail": "This header is required.", "code": "required"}
    ]
    assert not Payment.objects.exists()


def test_malformed_key_is_400(client: APIClient, invoice: Invoice) -> None:
    response = post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, "x" * 256)
    assert response.status_code == 400 and response.json()["type"].endswith("/idempotency-key-invalid")


def test_a_retry_replays_the_stored_response_without_running_again(client: APIClient, invoice: Invoice) -> None:
    key = new_key()
    received: list[dict[str, Any]] = []
    signals.replayed.connect(lambda **kw: received.append(kw), weak=False, dispatch_uid="test-replayed")
    try:
        first = post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
        again = post(client, pay_path(invoice), ' { "currency" : "eur", "amount" : 1.00E2 } ', key)
    finally:
        signals.replayed.disconnect(dispatch_uid="test-replayed")
    assert first.status_code == again.status_code == 201
    assert first["X-Cache-Lookup"] == "MISS" and first["Idempotent-Replayed"] == "false"
    assert again["X-Cache-Lookup"] == "HIT" and again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert again["Location"] == first["Location"] and again["Content-Type"] == "application/json"
    assert Payment.objects.count() == 1
    assert received and received[0]["scope"] == "client:acme" and key not in str(received[0])


def test_same_key_with_another_body_or_path_is_422(client: APIClient, invoice: Invoice) -> None:
    key = new_key()
    post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
    other_body = post(client, pay_path(invoice), {"amount": 101, "currency": "eur"}, key)
    assert other_body.status_code == 422 and other_body.json()["type"].endswith("/idempotency-key-reused")
    other_path = post(client, "/v2/users", {"email": "a@example.com", "name": "A"}, key)
    assert other_path.status_code == 422
    assert Payment.objects.count() == 1 and not Customer.objects.filter(email="a@example.com").exists()


def test_clients_never_share_keys(invoice: Invoice) -> None:
    key = new_key()
    first = post(APIClient(headers={"X-Client-ID": "a"}), pay_path(invoice), {"amount": 1, "currency": "eur"}, key)
    second = post(APIClient(headers={"X-Client-ID": "b"}), pay_path(invoice), {"amount": 2, "currency": "eur"}, key)
    assert first.status_code == second.status_code == 201
    assert second["X-Cache-Lookup"] == "MISS"
    assert Payment.objects.count() == 2


def test_validation_errors_of_the_view_are_stored_and_replayed(client: APIClient, invoice: Invoice) -> None:
    key = new_key()
    first = post(client, pay_path(invoice), {"amount": 100, "currency": "usd"}, key)
    again = post(client, pay_path(invoice), {"amount": 100, "currency": "usd"}, key)
    assert first.status_code == again.status_code == 422
    assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    assert again["Content-Type"] == "application/problem+json"


def test_answers_before_the_view_store_nothing(client: APIClient) -> None:
    key = new_key()
    assert post(client, "/idempotency/protected", {"email": "p@example.com"}, key).status_code == 401
    with pytest.raises(CommandError, match="No idempotency record"):
        call_command("idempotency_inspect", "client:acme", key, stdout=StringIO())


def test_a_crash_rolls_back_and_a_retry_runs_again(client: APIClient) -> None:
    key = new_key()
    body = {"email": f"{key}@example.com"}
    with pytest.raises(RuntimeError):
        post(client, "/idempotency/crash-once", body, key)
    assert not Customer.objects.filter(email=body["email"]).exists(), "the crashed write was rolled back"
    out = StringIO()
    call_command("idempotency_inspect", "client:acme", key, stdout=out)
    assert "state: failed" in out.getvalue()
    retry = post(client, "/idempotency/crash-once", body, key)
    assert retry.status_code == 201 and retry["X-Cache-Lookup"] == "MISS"
    assert Customer.objects.filter(email=body["email"]).count() == 1


def test_a_5xx_answer_fails_the_key_and_leaves_no_write(client: APIClient) -> None:
    key = new_key()
    body = {"email": f"{key}@example.com"}
    assert post(client, "/idempotency/server-error-once", body, key).status_code == 503
    assert not Customer.objects.filter(email=body["email"]).exists()
    retry = post(client, "/idempotency/server-error-once", body, key)
    assert retry.status_code == 201 and retry["X-Cache-Lookup"] == "MISS"


def test_a_status_the_view_does_not_keep_releases_the_key(client: APIClient) -> None:
    key = new_key()
    assert (
        post(client, "/idempotency/conflict-not-kept", {"email": "c@example.com", "conflict": True}, key).status_code
        == 409
    )
    fixed = post(client, "/idempotency/conflict-not-kept", {"email": "c@example.com"}, key)
    assert fixed.status_code == 201, "a released key takes another body"


def test_set_cookie_is_never_replayed(client: APIClient) -> None:
    key = new_key()
    first = post(client, "/idempotency/set-cookie", {"email": f"{key}@example.com"}, key)
    again = post(client, "/idempotency/set-cookie", {"email": f"{key}@example.com"}, key)
    assert "session-ish" in first.cookies and "session-ish" not in again.cookies
    assert again["ETag"] == '"v1"'


def test_unkeyed_requests_run_normally_where_keys_are_optional(client: APIClient) -> None:
    first = post(client, "/v2/users", {"email": "u1@example.com", "name": "U"}, None)
    assert first.status_code == 201 and "X-Cache-Lookup" not in first


def test_function_views_sync_and_async(client: APIClient) -> None:
    assert post(client, "/idempotency/sync-function", {"email": "s@example.com"}, None).status_code == 400
    for path, email in [
        ("/idempotency/sync-function", "s@example.com"),
        ("/idempotency/async-function", "a@example.com"),
    ]:
        key = new_key()
        first = post(client, path, {"email": email}, key)
        again = post(client, path, {"email": email}, key)
        assert (first.status_code, again.status_code) == (201, 201)
        assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
        assert Customer.objects.filter(email=email).count() == 1


def test_function_view_crash_marks_the_key_failed(client: APIClient) -> None:
    key = new_key()
    with pytest.raises(RuntimeError):
        post(client, "/idempotency/crash-function", {"email": f"{key}@example.com"}, key)
    assert post(client, "/idempotency/crash-function", {"email": f"{key}@example.com"}, key).status_code == 201


def test_middleware_protects_chosen_paths(client: APIClient) -> None:
    key = new_key()
    first = post(client, "/idempotency/plain", {"email": "m@example.com"}, key)
    again = post(client, "/idempotency/plain", {"email": "m@example.com"}, key)
    assert again["X-Cache-Lookup"] == "HIT" and again.content == first.content
    assert post(client, "/idempotency/plain", {"email": "n@example.com"}, key).status_code == 422
    assert Customer.objects.filter(email="m@example.com").count() == 1
    assert client.get("/idempotency/plain").status_code == 200


def test_a_long_view_renews_its_lease(client: APIClient) -> None:
    key = new_key()
    response = post(client, "/idempotency/long-running", {"email": f"{key}@example.com"}, key)
    assert response.status_code == 201


@pytest.mark.postgres
def test_in_flight_twin_gets_409_with_retry_after(client: APIClient, invoice: Invoice, settings: Any) -> None:
    settings.PAYMENT_GATEWAY_DELAY_MS = 1500
    key = new_key()
    body = {"amount": 100, "currency": "eur"}
    first = _in_background(lambda: post(client, pay_path(invoice), body, key))
    _wait_until_claimed(key)
    twin = post(APIClient(headers={"X-Client-ID": "acme"}), pay_path(invoice), body, key)
    assert twin.status_code == 409 and twin.json()["type"].endswith("/idempotency-key-in-use")
    assert 1 <= int(twin["Retry-After"]) <= 60
    first.join()
    assert first.result.status_code == 201 and Payment.objects.count() == 1


@pytest.mark.postgres
def test_a_view_may_wait_for_its_in_flight_twin(client: APIClient) -> None:
    key = new_key()
    body = {"email": f"{key}@example.com", "delay": 1.0}
    first = _in_background(lambda: post(client, "/idempotency/slow", body, key))
    _wait_until_claimed(key)
    twin = post(APIClient(headers={"X-Client-ID": "acme"}), "/idempotency/slow", body, key)
    first.join()
    assert twin.status_code == 201 and twin["X-Cache-Lookup"] == "HIT"
    assert twin.content == first.result.content
    assert Customer.objects.filter(email=body["email"]).count() == 1


class _Background(threading.Thread):
    result: Any = None


def _in_background(call: Any) -> _Background:
    def run() -> None:
        try:
            thread.result = call()
        finally:
            from django.db import connections

            connections.close_all()

    thread = _Background(target=run)
    thread.start()
    return thread


def _wait_until_claimed(key: str) -> None:
    import time

    from django_api_conventions.idempotency import get_store

    deadline = time.monotonic() + 10
    while get_store().inspect("client:acme", key) is None:
        assert time.monotonic() < deadline, "the first request never claimed its key"
        time.sleep(0.01)


def test_signals_name_the_key_by_hash_only(client: APIClient, invoice: Invoice) -> None:
    received: dict[str, list[dict[str, Any]]] = {"mismatch": []}
    signals.mismatch.connect(lambda **kw: received["mismatch"].append(kw), weak=False, dispatch_uid="t-mismatch")
    try:
        key = new_key()
        post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
        post(client, pay_path(invoice), {"amount": 200, "currency": "eur"}, key)
    finally:
        signals.mismatch.disconnect(dispatch_uid="t-mismatch")
    (event,) = received["mismatch"]
    assert len(event["key_hash"]) == 16 and key not in event["key_hash"] and event["scope"] == "client:acme"


def test_claimed_is_sent_for_the_run_and_not_for_its_replay(client: APIClient, invoice: Invoice) -> None:
    received: dict[str, list[dict[str, Any]]] = {"claimed": [], "replayed": []}
    for name in received:
        getattr(signals, name).connect(
            lambda name=name, **kw: received[name].append(kw), weak=False, dispatch_uid=f"t-{name}"
        )
    try:
        key = new_key()
        post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
        post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
        post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, None)
    finally:
        for name in received:
            getattr(signals, name).disconnect(dispatch_uid=f"t-{name}")
    (claimed,) = received["claimed"]
    (replayed,) = received["replayed"]
    assert claimed["key_hash"] == replayed["key_hash"] and claimed["scope"] == "client:acme"
    assert claimed["request"].path == pay_path(invoice)


def test_purge_command(client: APIClient, settings: Any, store_name: str) -> None:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "IDEMPOTENCY_RETENTION_SECONDS": 1,
        "IDEMPOTENCY_LEASE_SECONDS": 1,
    }
    post(client, "/v2/users", {"email": "purge@example.com", "name": "P"}, new_key())
    import time

    time.sleep(1.1)
    out = StringIO()
    call_command("idempotency_purge", "--dry-run", stdout=out)
    call_command("idempotency_purge", "--batch-size", "10", stdout=out)
    if store_name == "database":
        assert out.getvalue().splitlines() == [
            "database store: 1 expired record(s) would be deleted.",
            "database store: 1 expired record(s) deleted.",
        ]
    else:
        assert "expire on their own" in out.getvalue()


def test_admin_lists_records_read_only(client: APIClient, store_name: str) -> None:
    from django.contrib.auth.models import User

    post(client, "/v2/users", {"email": "adm@example.com", "name": "A"}, new_key())
    admin = User.objects.create_superuser("admin", "admin@example.com", "pw")
    browser = APIClient()
    browser.force_login(admin)
    page = browser.get("/admin/django_api_conventions/idempotencyrecord/")
    assert page.status_code == 200
    assert browser.get("/admin/django_api_conventions/idempotencyrecord/add/").status_code == 403
    assert browser.get("/admin/django_api_conventions/runtimeswitch/").status_code == 200


def test_the_views_own_database_errors_are_not_a_store_outage(client: APIClient) -> None:
    response = post(client, "/idempotency/database-down", {}, new_key())
    assert response.status_code == 503
    assert response.json()["type"].endswith("/problems/database-unavailable")


def test_the_query_string_is_part_of_the_request(client: APIClient) -> None:
    key = new_key()
    body = {"email": f"{key}@example.com", "name": "Q"}
    # A view that reads its query string (the example's views refuse undeclared parameters).
    assert post(client, "/idempotency/slow?b=2&a=1", body, key).status_code == 201
    same = post(client, "/idempotency/slow?a=1&b=2", body, key)
    assert same["X-Cache-Lookup"] == "HIT"
    assert post(client, "/idempotency/slow?a=1&b=3", body, key).status_code == 422


def test_an_unreachable_store_fails_closed(client: APIClient, settings: Any, store_name: str) -> None:
    if store_name == "database":
        pytest.skip("the database store's outage is the database's: covered by the database-down tests")
    unreachable = {
        "redis-cluster": "redis+cluster://127.0.0.1:1",
        "redis-sentinel": "redis+sentinel://127.0.0.1:1/mymaster/0",
    }.get(store_name, "redis://127.0.0.1:1/0")
    backend = REDIS_STORE_VARIANTS.get(store_name)
    if backend is None:
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_REDIS_URL": unreachable}
    else:
        settings.CACHES = {**settings.CACHES, "unreachable": {**backend, "LOCATION": unreachable}}
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_CACHE": "unreachable"}
    keyed = post(client, "/v2/users", {"email": "down@example.com", "name": "D"}, new_key())
    assert keyed.status_code == 503 and keyed.json()["type"].endswith("/idempotency-store-unavailable")
    assert keyed["Retry-After"] == "5"
    assert not Customer.objects.filter(email="down@example.com").exists()
    assert client.get("/v2/users").status_code == 200
    assert post(client, "/v2/users", {"email": "down@example.com", "name": "D"}, None).status_code == 201


def test_a_streaming_answer_is_not_stored_and_releases_the_key(client: APIClient) -> None:
    key = new_key()
    response = post(client, "/idempotency/streaming", {"email": f"{key}@example.com"}, key)
    assert response.status_code == 201 and b"".join(response.streaming_content) == b"ab"
    assert Customer.objects.filter(email=f"{key}@example.com").exists(), "the writes stay"
    with pytest.raises(CommandError, match="No idempotency record"):
        call_command("idempotency_inspect", "client:acme", key, stdout=StringIO())


def test_a_stored_answer_says_how_long_its_key_is_kept(client: APIClient, invoice: Invoice, settings: Any) -> None:
    settings.API_CONVENTIONS = {**getattr(settings, "API_CONVENTIONS", {}), "IDEMPOTENCY_RETENTION_SECONDS": 7200}
    key = new_key()
    first = post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
    assert first.status_code == 201 and first["Idempotency-Retention"] == "7200"
    again = post(client, pay_path(invoice), {"amount": 100, "currency": "eur"}, key)
    # The replay says the time left, never more than the first answer promised.
    assert again["X-Cache-Lookup"] == "HIT" and 7190 <= int(again["Idempotency-Retention"]) <= 7200


def test_an_answer_not_kept_promises_no_retention(client: APIClient) -> None:
    key = new_key()
    conflict = post(client, "/idempotency/conflict-not-kept", {"email": "r@example.com", "conflict": True}, key)
    assert conflict.status_code == 409 and "Idempotency-Retention" not in conflict
    assert "Idempotency-Retention" not in post(client, "/v2/users", {"email": "n@example.com", "name": "N"}, None)
