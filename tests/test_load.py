"""Load: mixed traffic over several gunicorn workers for a bounded time, on loopback only.

Keyed payments (10 % of them duplicates of a recent key, often still in flight), walks through
paginated lists, and replays of finished keys, from ``LOAD_CLIENTS`` threads for ``LOAD_SECONDS``
per store (60 by default; ``LOAD_SECONDS=600 pytest -m load`` for a longer run). It reports
requests, answers by status, executions per key (must be one), p50/p99 latencies and the
workers' memory, writes them to var/reliability/load-<store>.json and prints them.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
import uuid
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field

import pytest

from testproject.billing.models import Customer, Invoice, Payment

from .figures import report
from .http import HTTPResult, send
from .servers import gunicorn, rss_kib

pytestmark = [pytest.mark.load, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SECONDS = float(os.environ.get("LOAD_SECONDS", "60"))
CLIENTS = int(os.environ.get("LOAD_CLIENTS", "8"))
WORKERS = 3
WARM_UP_SECONDS = min(10.0, SECONDS / 4)
# Growth of one worker's resident memory between the end of the warm-up and the end of the run.
RSS_GROWTH_LIMIT_KIB = 16 * 1024
# Mix of operations: keyed payments, list walks, replays of finished keys.
MIX = (("payment", 60), ("list-walk", 25), ("replay", 15))
DUPLICATE_SHARE = 0.10
# A new invoice per key: upper bound on the keys a run can use (raise with LOAD_SECONDS).
INVOICES = max(2000, int(SECONDS * 80))


@dataclass
class Sent:
    key: str
    client_id: str
    invoice_id: str
    misses: int = 0  # answers that ran the view (X-Cache-Lookup: MISS): must end at exactly one
    bodies: set[bytes] = field(default_factory=set)


@dataclass
class LoadRun:
    url: str
    invoices: list[str]
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    recent: deque[Sent] = field(default_factory=lambda: deque(maxlen=20))
    finished: list[Sent] = field(default_factory=list)
    sent: dict[str, Sent] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    unexpected: list[str] = field(default_factory=list)

    def client(self, number: int) -> None:
        rng = random.Random(number)
        client_id = f"load-{number}-{uuid.uuid4().hex[:8]}"
        operations, weights = zip(*MIX, strict=True)
        while not self.stop.is_set():
            operation = rng.choices(operations, weights)[0]
            if operation == "payment" and rng.random() < DUPLICATE_SHARE and self.recent:
                self.duplicate(rng.choice(list(self.recent)))
            elif operation == "payment":
                self.payment(client_id)
            elif operation == "list-walk":
                self.list_walk(client_id)
            elif self.finished:
                self.replay(rng.choice(self.finished))

    def timed(self, category: str, method: str, path: str, sent: Sent | None = None, client_id: str = "") -> HTTPResult:
        headers = {"X-Client-ID": sent.client_id if sent else client_id}
        body = None
        if sent is not None:
            headers.update({"Content-Type": "application/json", "Idempotency-Key": sent.key})
            body = '{"amount": 1, "currency": "eur"}'
        started = time.perf_counter()
        result = send(self.url, method, path, body=body, headers=headers)
        with self.lock:
            self.latencies[category].append(time.perf_counter() - started)
            self.statuses[category][result.status] += 1
        return result

    def payment(self, client_id: str) -> None:
        with self.lock:
            if not self.invoices:
                self.stop.set()
                return
            sent = Sent(uuid.uuid4().hex, client_id, self.invoices.pop())
            self.sent[sent.key] = sent
            self.recent.append(sent)
        self.keyed("payment", sent)
        with self.lock:
            if sent.bodies:  # not when a duplicate sent first still runs (this one got a 409)
                self.finished.append(sent)

    def duplicate(self, sent: Sent) -> None:
        """The same request again, often while the first is still running (either may claim the key)."""
        self.keyed("duplicate", sent)

    def keyed(self, category: str, sent: Sent) -> None:
        """A 201 that ran the view (MISS) or replayed it (HIT), or a 409 while the key is in flight."""
        result = self.timed(category, "POST", f"/v2/invoices/{sent.invoice_id}/payments", sent)
        if result.status == 201 and result.header("X-Cache-Lookup") in ("MISS", "HIT"):
            with self.lock:
                sent.misses += result.header("X-Cache-Lookup") == "MISS"
                sent.bodies.add(result.body)
            return
        if (
            result.status == 409
            and result.header("Retry-After")
            and result.json()["type"].endswith("/idempotency-key-in-use")
        ):
            return
        self.flag(f"{category}: {result.status} {result.body[:200]!r}")

    def replay(self, sent: Sent) -> None:
        result = self.timed("replay", "POST", f"/v2/invoices/{sent.invoice_id}/payments", sent)
        with self.lock:
            expected = set(sent.bodies)
        if result.status != 201 or result.header("X-Cache-Lookup") != "HIT" or {result.body} != expected:
            self.flag(f"replay: {result.status} {result.header('X-Cache-Lookup')} {result.body[:200]!r}")

    def list_walk(self, client_id: str) -> None:
        path = "/v2/invoices?limit=50"
        for _ in range(3):
            result = self.timed("list-walk", "GET", path, client_id=client_id)
            if result.status != 200:
                self.flag(f"list-walk: {result.status} {result.body[:200]!r}")
                return
            cursor = result.json()["pagination"]["next_cursor"]
            if not cursor:
                return
            path = f"/v2/invoices?limit=50&cursor={cursor}"

    def flag(self, what: str) -> None:
        with self.lock:
            self.unexpected.append(what)


def percentile(values: list[float], share: float) -> float:
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(share * 100) - 1] * 1000, 1)


def test_mixed_load_over_gunicorn_workers(example_store: str) -> None:
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Load")
    invoices = Invoice.objects.bulk_create(
        Invoice(user=user, amount_due=10**9, currency="eur") for _ in range(INVOICES)
    )
    run = LoadRun("", [invoice.pk for invoice in invoices])
    with gunicorn(WORKERS, preload=True, IDEMPOTENCY_STORE=example_store, PAYMENT_GATEWAY_DELAY_MS="20") as server:
        run.url = server.url
        clients = [threading.Thread(target=run.client, args=(n,)) for n in range(CLIENTS)]
        started = time.monotonic()
        for thread in clients:
            thread.start()
        time.sleep(WARM_UP_SECONDS)
        workers = server.worker_pids()
        rss_after_warm_up = {pid: rss_kib(pid) for pid in workers}
        run.stop.wait(max(0.0, SECONDS - WARM_UP_SECONDS))
        rss_at_end = {pid: rss_kib(pid) for pid in workers}
        run.stop.set()
        for thread in clients:
            thread.join(timeout=60)
        elapsed = time.monotonic() - started
        assert sorted(server.worker_pids()) == sorted(workers), "no worker died or was replaced"

    executions = Counter(
        Payment.objects.filter(invoice_id__in=[s.invoice_id for s in run.sent.values()]).values_list(
            "invoice_id", flat=True
        )
    )
    all_latencies = [value for values in run.latencies.values() for value in values]
    growth = {pid: rss_at_end[pid] - rss_after_warm_up[pid] for pid in workers}
    figures = {
        "store": example_store,
        "seconds": round(elapsed, 1),
        "clients": CLIENTS,
        "workers": WORKERS,
        "requests": len(all_latencies),
        "requests_per_second": round(len(all_latencies) / elapsed, 1),
        "statuses": {category: dict(counter) for category, counter in run.statuses.items()},
        "unexpected_answers": len(run.unexpected),
        "keys": len(run.sent),
        "executions_per_key": dict(Counter(executions[s.invoice_id] for s in run.sent.values())),
        "latency_ms": {
            "p50": percentile(all_latencies, 0.50),
            "p99": percentile(all_latencies, 0.99),
            **{f"{category}_p50": percentile(values, 0.50) for category, values in run.latencies.items()},
            **{f"{category}_p99": percentile(values, 0.99) for category, values in run.latencies.items()},
        },
        "worker_rss_kib": {"after_warm_up": list(rss_after_warm_up.values()), "at_end": list(rss_at_end.values())},
        "worker_rss_growth_kib": list(growth.values()),
    }
    report(f"load-{example_store}", figures)
    assert not run.unexpected, json.dumps(run.unexpected[:10], indent=1)
    assert figures["executions_per_key"] == {1: len(run.sent)}, "every key ran exactly once"
    assert all(sent.misses == 1 and len(sent.bodies) == 1 for sent in run.sent.values()), "one run, one answer"
    assert all(value < RSS_GROWTH_LIMIT_KIB for value in growth.values()), growth
