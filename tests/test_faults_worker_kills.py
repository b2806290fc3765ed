"""Faults: the gunicorn worker running a keyed payment is killed with SIGKILL at a random moment,
many times; afterwards every key has at most one payment, and a retry after the lease answers
the stored payment or makes it, exactly once.

``FAULTS_KILLS`` (default 20 per store) and ``FAULTS_SEED`` (default: random, printed) repeat a run.
"""

from __future__ import annotations

import contextlib
import os
import random
import threading
import time
import uuid
from collections import Counter
from typing import Any

import pytest

from django_api_conventions.idempotency import get_store
from testproject.billing.models import Customer, Invoice, Payment

from .figures import report
from .http import HTTPResult, send
from .servers import gunicorn
from .test_idempotency_concurrency import pay

pytestmark = [pytest.mark.faults, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

KILLS = int(os.environ.get("FAULTS_KILLS", "20"))
LEASE_SECONDS = 2
GATEWAY_DELAY_MS = 200
# Kill points spread over the whole request, measured on the busy machine before the kills:
# before the claim, in the gateway call, around the commit and after the answer.
KILL_SPREAD = 1.2


def test_sigkill_at_random_points_of_keyed_payments(example_store: str) -> None:
    seed = int(os.environ.get("FAULTS_SEED") or random.randrange(2**32))
    rng = random.Random(seed)
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    invoices = [Invoice.objects.create(user=user, amount_due=10**9, currency="eur") for _ in range(KILLS + 1)]
    timing_invoice = invoices.pop()
    client_id = f"kills-{uuid.uuid4().hex[:12]}"
    store = get_store()
    keys = {invoice.pk: uuid.uuid4().hex for invoice in invoices}
    killed_in: Counter[str] = Counter()
    client_saw: Counter[str] = Counter()

    with gunicorn(
        1,
        preload=True,
        IDEMPOTENCY_STORE=example_store,
        PAYMENT_GATEWAY_DELAY_MS=str(GATEWAY_DELAY_MS),
        IDEMPOTENCY_LEASE_SECONDS=str(LEASE_SECONDS),
    ) as server:
        started = time.monotonic()
        assert pay(server.url, timing_invoice, uuid.uuid4().hex, client_id).status == 201
        latest_kill = (time.monotonic() - started) * KILL_SPREAD
        for invoice in invoices:
            key = keys[invoice.pk]
            seen: dict[str, Any] = {}
            request = threading.Thread(target=_pay_into, args=(seen, server.url, invoice, key, client_id))
            request.start()
            time.sleep(rng.uniform(0, latest_kill))
            assert server.kill_workers(), "no worker to kill"
            request.join(timeout=30)
            client_saw[str(seen.get("status", "connection lost"))] += 1

            record = store.inspect(f"client:{client_id}", key)
            payments = Payment.objects.filter(invoice=invoice).count()
            assert payments <= 1
            state = record.state if record else "no record"
            # A committed payment is never left behind a key that would run again: the database
            # store commits both together, the Redis store marks the key committing first.
            assert not (state == "started" and payments), "committed, but the key would run again"
            killed_in[f"{state}, {payments} payment(s)"] += 1
            server.wait_until_serving()

        time.sleep(LEASE_SECONDS + 0.2)  # every lease of a killed request has passed
        retries = {invoice.pk: _retry(server.url, invoice, keys[invoice.pk], client_id) for invoice in invoices}
        replays = {invoice.pk: pay(server.url, invoice, keys[invoice.pk], client_id) for invoice in invoices}

    executions = Counter(Payment.objects.filter(invoice__in=invoices).values_list("invoice_id", flat=True))
    for invoice in invoices:
        assert executions[invoice.pk] == 1, f"invoice {invoice.pk}: {executions[invoice.pk]} payments"
        assert replays[invoice.pk].status == 201 and replays[invoice.pk].header("X-Cache-Lookup") == "HIT"
        assert replays[invoice.pk].body == retries[invoice.pk].body
    report(
        f"faults-worker-kills-{example_store}",
        {
            "store": example_store,
            "seed": seed,
            "kills": KILLS,
            "kill_window_ms": round(latest_kill * 1000),
            "killed_in": dict(killed_in),
            "client_saw": dict(client_saw),
            "retries": dict(Counter(r.header("X-Cache-Lookup") for r in retries.values())),
            "keys_with_more_than_one_payment": sum(count > 1 for count in executions.values()),
        },
    )


def test_a_worker_killed_between_the_commit_and_the_stored_answer(example_store: str) -> None:
    """The narrowest window: the view's transaction has committed, the answer is not final yet."""
    client_id, key, name = f"commit-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex, uuid.uuid4().hex
    headers = {"Content-Type": "application/json", "Idempotency-Key": key, "X-Client-ID": client_id}
    body = f'{{"name": "{name}"}}'
    with gunicorn(
        1,
        preload=True,
        DJANGO_SETTINGS_MODULE="tests.settings",
        IDEMPOTENCY_STORE=example_store,
        IDEMPOTENCY_LEASE_SECONDS=str(LEASE_SECONDS),
    ) as server:
        with pytest.raises(OSError):
            send(
                server.url,
                "POST",
                "/idempotency/dies-after-commit",
                body=body,
                headers={**headers, "X-Test-Die": "after-commit"},
            )
        assert Customer.objects.filter(name=name).count() == 1, "the transaction committed before the kill"
        server.wait_until_serving()
        time.sleep(LEASE_SECONDS + 0.2)
        retry = send(server.url, "POST", "/idempotency/dies-after-commit", body=body, headers=headers)
    assert retry.status == 201 and retry.header("X-Cache-Lookup") == "HIT", (retry.status, retry.body)
    assert Customer.objects.filter(name=name).count() == 1, "the retry answered the committed run"
    assert retry.json() == {"id": Customer.objects.get(name=name).pk}
    report(
        f"faults-killed-after-commit-{example_store}",
        {
            "store": example_store,
            "kills": 1,
            "retry": retry.header("X-Cache-Lookup"),
            "executions": 1,
        },
    )


def _pay_into(seen: dict[str, Any], url: str, invoice: Invoice, key: str, client_id: str) -> None:
    # The worker may die under the request: the client sees a broken connection.
    with contextlib.suppress(OSError):
        seen["status"] = pay(url, invoice, key, client_id).status


def _retry(url: str, invoice: Invoice, key: str, client_id: str) -> HTTPResult:
    """Retry as a client should: a 409 while a lease runs is retried after its Retry-After."""
    deadline = time.monotonic() + 30
    while True:
        result = pay(url, invoice, key, client_id)
        if result.status != 409:
            assert result.status == 201, (result.status, result.body)
            return result
        assert result.json()["type"].endswith("/idempotency-key-in-use"), result.body
        assert time.monotonic() < deadline, "the key stayed in use"
        time.sleep(min(float(result.header("Retry-After") or 1), 1.0))
