"""At most once under real concurrency: threads and gunicorn workers against PostgreSQL and Redis,
and workers killed with SIGKILL in the middle of a payment."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from django_api_conventions.idempotency import get_store
from testproject.billing.models import Customer, Invoice, Order, Payment

from .http import HTTPResult, send
from .servers import gunicorn, uvicorn
from .stores import STORES_AND_PGBOUNCER, configure_store

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BODY = {"amount": 100, "currency": "eur"}


@pytest.fixture(params=STORES_AND_PGBOUNCER)
def store_name(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Each store, and the database store through PgBouncer (transaction pooling) too."""
    yield from configure_store(request, settings)


@pytest.fixture
def invoice() -> Invoice:
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    return Invoice.objects.create(user=user, amount_due=10**12, currency="eur")


@pytest.fixture
def client_id() -> str:
    return f"load-{uuid.uuid4().hex[:12]}"


def pay(
    base_url: str, invoice: Invoice, key: str, client_id: str, body: Any = BODY, collection: str = "payments"
) -> HTTPResult:
    """``collection="async-payments"``: the same payment through the example's async (adrf) view."""
    return send(
        base_url,
        "POST",
        f"/v2/invoices/{invoice.pk}/{collection}",
        body=json.dumps(body),
        headers={"Content-Type": "application/json", "Idempotency-Key": key, "X-Client-ID": client_id},
    )


def order(base_url: str, user_id: str, key: str, client_id: str) -> HTTPResult:
    return send(
        base_url,
        "POST",
        "/v2/orders",
        body=json.dumps({"user_id": user_id}),
        headers={"Content-Type": "application/json", "Idempotency-Key": key, "X-Client-ID": client_id},
    )


def all_at_once(calls: list[Any], threads: int) -> list[HTTPResult]:
    """Run ``calls`` on ``threads`` threads; when they fit in one wave, release them together."""
    barrier = threading.Barrier(len(calls)) if len(calls) <= threads else None

    def run(call: Any) -> HTTPResult:
        if barrier is not None:
            barrier.wait(timeout=30)
        return call()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(run, calls))


def assert_executed_once(results: list[HTTPResult], invoice: Invoice) -> None:
    statuses = Counter(r.status for r in results)
    assert set(statuses) <= {201, 409}, statuses
    created = [r for r in results if r.status == 201]
    assert created, statuses
    assert len({r.body for r in created}) == 1, "every success is the same payment, byte for byte"
    assert sum(r.header("X-Cache-Lookup") == "MISS" for r in created) == 1
    for conflict in (r for r in results if r.status == 409):
        assert conflict.header("Content-Type") == "application/problem+json" and conflict.header("Retry-After")
    assert Payment.objects.filter(invoice=invoice).count() == 1


def assert_each_key_once(results: list[HTTPResult], invoice: Invoice, keys: int) -> None:
    assert Counter(r.status for r in results) == {201: keys}
    assert Payment.objects.filter(invoice=invoice).count() == keys


def test_50_threads_one_key(live_server: Any, settings: Any, store_name: str, invoice: Invoice, client_id: str) -> None:
    settings.PAYMENT_GATEWAY_DELAY_MS = 300
    key = uuid.uuid4().hex
    results = all_at_once([lambda: pay(live_server.url, invoice, key, client_id)] * 50, threads=50)
    assert_executed_once(results, invoice)
    replay = pay(live_server.url, invoice, key, client_id)
    assert replay.header("X-Cache-Lookup") == "HIT" and replay.body == next(r.body for r in results if r.status == 201)


def test_200_keys_at_once(live_server: Any, store_name: str, invoice: Invoice, client_id: str) -> None:
    keys = [uuid.uuid4().hex for _ in range(200)]
    results = all_at_once([lambda k=k: pay(live_server.url, invoice, k, client_id) for k in keys], threads=40)
    assert_each_key_once(results, invoice, 200)


@pytest.mark.parametrize("collection", ["async-payments", "payments"])
def test_50_clients_one_key_under_uvicorn(
    example_store: str, invoice: Invoice, client_id: str, collection: str
) -> None:
    """Under ASGI, the async view and the sync one: one execution, the others 409 or its replay."""
    with uvicorn(2, IDEMPOTENCY_STORE=example_store, PAYMENT_GATEWAY_DELAY_MS="300") as server:
        key = uuid.uuid4().hex
        results = all_at_once(
            [lambda: pay(server.url, invoice, key, client_id, collection=collection)] * 50, threads=50
        )
        assert_executed_once(results, invoice)
        replay = pay(server.url, invoice, key, client_id, collection=collection)
        assert replay.status == 201 and replay.header("X-Cache-Lookup") == "HIT"
        assert replay.body == next(r.body for r in results if r.status == 201)


def test_4_gunicorn_workers(example_store: str, invoice: Invoice, client_id: str) -> None:
    with gunicorn(4, IDEMPOTENCY_STORE=example_store, PAYMENT_GATEWAY_DELAY_MS="300") as server:
        key = uuid.uuid4().hex
        assert_executed_once(all_at_once([lambda: pay(server.url, invoice, key, client_id)] * 50, threads=50), invoice)
        # Distinct keys: orders, which share no row lock (payments of one invoice queue on it).
        keys = [uuid.uuid4().hex for _ in range(200)]
        results = all_at_once([lambda k=k: order(server.url, invoice.user_id, k, client_id) for k in keys], threads=16)
        assert Counter(r.status for r in results) == {201: 200}
        assert Order.objects.count() == 200


def test_worker_killed_mid_payment(example_store: str, invoice: Invoice, client_id: str) -> None:
    lease = 6.0  # long enough for gunicorn to boot a new worker before it passes, even on a busy machine
    with gunicorn(
        1, IDEMPOTENCY_STORE=example_store, PAYMENT_GATEWAY_DELAY_MS="2000", IDEMPOTENCY_LEASE_SECONDS=str(int(lease))
    ) as server:
        key = uuid.uuid4().hex
        first = threading.Thread(target=lambda: _ignore_errors(lambda: pay(server.url, invoice, key, client_id)))
        first.start()
        claimed_at = _wait_until_claimed(f"client:{client_id}", key)
        time.sleep(0.3)
        assert server.kill_workers(), "no worker to kill"
        first.join()
        assert not Payment.objects.exists(), "the killed payment left nothing behind"

        server.wait_until_serving()
        within_lease = pay(server.url, invoice, key, client_id)
        assert within_lease.status == 409 and within_lease.json()["type"].endswith("/idempotency-key-in-use")
        time.sleep(max(0.0, claimed_at + lease + 0.2 - time.monotonic()))

        after_lease = pay(server.url, invoice, key, client_id)
        assert after_lease.status == 201 and after_lease.header("X-Cache-Lookup") == "MISS"
        assert Payment.objects.count() == 1
        replay = pay(server.url, invoice, key, client_id)
        assert replay.header("X-Cache-Lookup") == "HIT" and replay.body == after_lease.body
        assert Payment.objects.count() == 1


def test_late_worker_cannot_overwrite_the_new_owner(
    live_server: Any, settings: Any, store_name: str, invoice: Invoice, client_id: str
) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_LEASE_SECONDS": 1}
    settings.PAYMENT_GATEWAY_DELAY_MS = 2000
    key = uuid.uuid4().hex
    late: dict[str, HTTPResult] = {}
    first = threading.Thread(target=lambda: late.setdefault("r", pay(live_server.url, invoice, key, client_id)))
    first.start()
    claimed_at = _wait_until_claimed(f"client:{client_id}", key)
    time.sleep(max(0.0, claimed_at + 1.2 - time.monotonic()))
    newer = pay(live_server.url, invoice, key, client_id)
    first.join()
    assert late["r"].status == 409 and late["r"].json()["type"].endswith("/idempotency-lease-expired")
    assert newer.status == 201 and newer.header("X-Cache-Lookup") == "MISS"
    assert Payment.objects.count() == 1, "the late worker's payment was rolled back"
    replay = pay(live_server.url, invoice, key, client_id)
    assert replay.header("X-Cache-Lookup") == "HIT" and replay.body == newer.body


def _ignore_errors(call: Any) -> None:
    # The worker dies under the request: the client sees a broken connection.
    with contextlib.suppress(OSError):
        call()


def _wait_until_claimed(scope: str, key: str) -> float:
    deadline = time.monotonic() + 15
    while get_store().inspect(scope, key) is None:
        assert time.monotonic() < deadline, "the request never claimed its key"
        time.sleep(0.01)
    return time.monotonic()
