"""A freshly started threaded server answers its very first requests, all arriving at once.

Optional integrations (opentelemetry-api here) are looked up once, when the app is ready, never
by a lazy import on a request thread: two threads importing the same missing module at once can
see it half imported, and one of them answered 500.

``COLD_WORKER_RUNS`` (default 3) repeats the start and the burst.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from testproject.billing.models import Customer, Invoice

from .servers import REPOSITORY, gunicorn
from .test_idempotency_concurrency import all_at_once, pay

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RUNS = int(os.environ.get("COLD_WORKER_RUNS", "3"))
WORKERS, THREADS, REQUESTS = 2, 4, 12
WITHOUT_OPENTELEMETRY = Path(__file__).resolve().parent / "without_opentelemetry"


@pytest.mark.parametrize("run", range(RUNS))
def test_concurrent_first_keyed_posts_to_a_cold_threaded_server(run: int) -> None:
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=user, amount_due=10**9, currency="eur")
    client_id = f"cold-{uuid.uuid4().hex[:12]}"
    with gunicorn(WORKERS, threads=THREADS, cold=True, PYTHONPATH=f"{WITHOUT_OPENTELEMETRY}:{REPOSITORY}") as server:
        calls = [lambda: pay(server.url, invoice, uuid.uuid4().hex, client_id) for _ in range(REQUESTS)]
        results = all_at_once(calls, threads=REQUESTS)
    statuses = sorted(result.status for result in results)
    assert statuses == [201] * REQUESTS, [result.body[:300] for result in results if result.status != 201]
