"""Faults: a private PostgreSQL crashes (``pg_ctl stop -m immediate``) and comes back in the middle
of a load of keyed payments over several gunicorn workers.

During the outage every answer is a 503 problem with ``Retry-After`` (or a 409 problem for a key
whose lease still runs), never a 500 or an HTML page; afterwards the clients' retries converge
to exactly one payment per key. The shared PostgreSQL server is never touched.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections import Counter

import pytest

from .figures import report
from .http import HTTPResult, send
from .private_services import PrivatePostgres, private_postgres
from .servers import gunicorn

pytestmark = [pytest.mark.faults, pytest.mark.postgres]

INVOICES = 600
CLIENTS = 6
LEASE_SECONDS = 2
OUTAGE_SECONDS = 2.0
RETRY_STATUSES = {409, 503}


def test_postgresql_crash_and_restart_under_keyed_payments() -> None:
    with private_postgres() as postgres:
        invoice_ids = _create_invoices(postgres)
        with gunicorn(
            3,
            preload=True,
            DATABASE_URL=postgres.url(),
            IDEMPOTENCY_STORE="database",
            IDEMPOTENCY_LEASE_SECONDS=str(LEASE_SECONDS),
            PAYMENT_GATEWAY_DELAY_MS="30",
        ) as server:
            load = KeyedLoad(server.url, invoice_ids)
            load.start()
            time.sleep(1.5)
            outage_started = time.monotonic()
            postgres.stop("immediate")
            time.sleep(OUTAGE_SECONDS)
            postgres.start()
            outage_seconds = time.monotonic() - outage_started
            time.sleep(1.0)
            load.finish(timeout=90)

        payments = dict(
            line.split("|")
            for line in postgres.psql("SELECT invoice_id, count(*) FROM billing_payment GROUP BY invoice_id").split()
        )

    statuses = Counter(result.status for result in load.results)
    assert not load.errors, load.errors[:5]
    assert set(statuses) <= {201, *RETRY_STATUSES}, statuses
    for result in load.results:
        if result.status in RETRY_STATUSES:
            assert result.header("Content-Type") == "application/problem+json", result.body[:200]
            assert result.header("Retry-After"), result.body
    problems = Counter(r.json()["type"].rsplit("/", 1)[-1] for r in load.results if r.status in RETRY_STATUSES)
    assert statuses[503], "no request met the outage: the test proved nothing"

    assert len(load.done) == len(load.sent_keys), "every key converged"
    assert {invoice: int(count) for invoice, count in payments.items()} == {
        load.invoice_of[key]: 1 for key in load.sent_keys
    }, "exactly one payment per key"
    for key, bodies in load.bodies.items():
        assert len(bodies) == 1, f"key {key}: every success is the same payment, byte for byte"
    report(
        "faults-postgres-restart",
        {
            "keys": len(load.sent_keys),
            "requests": len(load.results),
            "statuses": dict(statuses),
            "problems": dict(problems),
            "outage_seconds": round(outage_seconds, 1),
            "payments": sum(int(count) for count in payments.values()),
            "keys_with_more_than_one_payment": sum(int(count) > 1 for count in payments.values()),
        },
    )


def _create_invoices(postgres: PrivatePostgres) -> list[str]:
    ids = [f"inv_faults_{n}" for n in range(1, INVOICES + 1)]
    rows = ", ".join(f"('{invoice_id}', 'usr_faults', 'open', 1000000000, 'eur', now())" for invoice_id in ids)
    columns = "(id, user_id, status, amount_due, currency, created_at)"
    insert_invoices = f"INSERT INTO billing_invoice {columns} VALUES {rows}"  # noqa: S608 -- ids made from a counter
    postgres.psql(
        "INSERT INTO billing_customer (id, email, name, created_at) "
        "VALUES ('usr_faults', 'f@example.com', 'F', now());" + insert_invoices
    )
    return ids


class KeyedLoad:
    """Clients that pay fresh invoices with fresh keys, retrying 409 and 503 as told, until stopped;
    10 % of successes are sent once more (a duplicate that must replay)."""

    def __init__(self, url: str, invoice_ids: list[str]) -> None:
        self.url = url
        self.client_id = f"pg-restart-{uuid.uuid4().hex[:12]}"
        self.fresh: queue.SimpleQueue[str] = queue.SimpleQueue()
        for invoice_id in invoice_ids:
            self.fresh.put(invoice_id)
        self.invoice_of: dict[str, str] = {}
        self.sent_keys: set[str] = set()
        self.done: set[str] = set()
        self.bodies: dict[str, set[bytes]] = {}
        self.results: list[HTTPResult] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.stop_new_keys = threading.Event()
        self.threads = [
            threading.Thread(
                target=self._client,
            )
            for _ in range(CLIENTS)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self, timeout: float) -> None:
        self.stop_new_keys.set()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(timeout=max(0.1, deadline - time.monotonic()))
        assert not any(thread.is_alive() for thread in self.threads), "the retries did not converge"

    def _client(self) -> None:
        while not self.stop_new_keys.is_set():
            try:
                invoice_id = self.fresh.get_nowait()
            except queue.Empty:
                return
            key = uuid.uuid4().hex
            with self.lock:
                self.invoice_of[key] = invoice_id
                self.sent_keys.add(key)
            self._until_paid(invoice_id, key)
            if int(key, 16) % 10 == 0:
                self._until_paid(invoice_id, key)  # a duplicate: must be the same payment

    def _until_paid(self, invoice_id: str, key: str) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                result = send(
                    self.url,
                    "POST",
                    f"/v2/invoices/{invoice_id}/payments",
                    body='{"amount": 100, "currency": "eur"}',
                    headers={"Content-Type": "application/json", "Idempotency-Key": key, "X-Client-ID": self.client_id},
                )
            except OSError as exc:
                with self.lock:
                    self.errors.append(f"{key}: {exc!r}")
                return
            with self.lock:
                self.results.append(result)
            if result.status == 201:
                with self.lock:
                    self.done.add(key)
                    self.bodies.setdefault(key, set()).add(result.body)
                return
            if result.status not in RETRY_STATUSES:
                return  # recorded; the test fails on it
            time.sleep(min(float(result.header("Retry-After") or 1), 0.5))
        with self.lock:
            self.errors.append(f"{key}: no success within 60 s")
