"""Redis Sentinel failovers under keyed load: executions per key, counted in PostgreSQL.

Client threads send keyed POSTs to a view that inserts one row per execution, each key retried
after a 503, a 409 or a connection error until it gets its answer. Meanwhile the master is
killed (SIGKILL), the sentinels promote a replica, the old master comes back as a replica.
Then each key's rows are counted: more than one is a duplicate execution.

- ``test_one_failover_with_the_replica_wait`` (services pass, < 60 s): WAIT 1, 0 duplicates.
- ``-m failover`` (not run unless selected): ``FAILOVERS`` (default 20) failovers with
  ``IDEMPOTENCY_REDIS_WAIT_REPLICAS = 1`` (must be 0 duplicates) and as many without (the
  duplicate rate measured, reported, never asserted): the figures of docs/reliability.md,
  written to var/reliability/redis-failover-*.json. One command repeats them:
  ``DATABASE_URL=postgres://... REDIS_URL=redis://... FAILOVERS=20 pytest -m failover tests/test_redis_failover.py``
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import Counter
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

from testproject.billing.models import Customer

from .figures import report
from .redis_topologies import SentinelSetup

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.redis_topologies,
              pytest.mark.django_db(transaction=True)]

FAILOVERS = int(os.environ.get("FAILOVERS", "20"))
CLIENTS = int(os.environ.get("FAILOVER_CLIENTS", "4"))


def run_failovers(setup: SentinelSetup, settings: Any, failovers: int, wait_replicas: int) -> dict[str, Any]:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "redis", "IDEMPOTENCY_REDIS_URL": setup.url(),
        "IDEMPOTENCY_REDIS_WAIT_REPLICAS": wait_replicas, "IDEMPOTENCY_REDIS_WAIT_TIMEOUT_MS": 500,
        # A claim whose committing record was lost waits out its lease: keep it short.
        "IDEMPOTENCY_LEASE_SECONDS": 2,
    }
    run = uuid.uuid4().hex[:8]
    stop = threading.Event()
    lock = threading.Lock()
    keys: list[str] = []
    answers: Counter[int | str] = Counter()

    def client_loop(number: int) -> None:
        client = APIClient(headers={"X-Client-ID": f"failover-{run}"})
        sequence = 0
        while not stop.is_set():
            sequence += 1
            key = f"{run}-{number}-{sequence}"
            with lock:
                keys.append(key)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # retried until answered, even after stop
                try:
                    response = client.generic("POST", "/idempotency/execution-log", json.dumps({"tag": key}),
                                              content_type="application/json", headers={"Idempotency-Key": key})
                    status: int | str = response.status_code
                except Exception as exc:
                    status = type(exc).__name__
                with lock:
                    answers[status] += 1
                if status == 201:
                    break
                time.sleep(0.05)
        connections.close_all()  # this thread's: the test database is dropped at the end

    threads = [threading.Thread(target=client_loop, args=(n,), daemon=True) for n in range(CLIENTS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    try:
        for _ in range(failovers):
            time.sleep(1.0)  # load on the current master before it dies
            setup.fail_over()
        time.sleep(1.0)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=90)
    executions = Counter(Customer.objects.filter(name__in=keys).values_list("name", flat=True))
    duplicates = {key: count for key, count in executions.items() if count > 1}
    return {
        "failovers": failovers, "wait_replicas": wait_replicas, "clients": CLIENTS, "keys": len(keys),
        "keys_executed": len(executions), "duplicate_keys": len(duplicates),
        "duplicate_rate": round(len(duplicates) / max(1, len(keys)), 6), "extra_executions": sum(
            count - 1 for count in duplicates.values()), "answers": dict(answers),
        "seconds": round(time.monotonic() - started, 1),
    }


def test_one_failover_with_the_replica_wait(redis_sentinel_topology: SentinelSetup, settings: Any) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, 1, wait_replicas=1)
    report("redis-failover-smoke", figures)
    assert figures["keys_executed"] == figures["keys"] and figures["duplicate_keys"] == 0, figures


@pytest.mark.failover
def test_failovers_with_the_replica_wait_run_each_key_at_most_once(
    redis_sentinel_topology: SentinelSetup, settings: Any,
) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, FAILOVERS, wait_replicas=1)
    report("redis-failover-wait-1", figures)
    assert figures["duplicate_keys"] == 0, figures


@pytest.mark.failover
def test_failovers_without_the_replica_wait_measured(redis_sentinel_topology: SentinelSetup, settings: Any) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, FAILOVERS, wait_replicas=0)
    report("redis-failover-wait-0", figures)  # the rate is measured, not asserted: replication is asynchronous
