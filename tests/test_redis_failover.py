"""Redis Sentinel failovers under keyed load: executions per key, counted in PostgreSQL.

Client threads send keyed POSTs to a view that inserts one row per execution, each key retried
after a 503, a 409 or a connection error until it gets its answer. Meanwhile the master is
killed (SIGKILL), the sentinels promote a replica, the old master comes back as a replica.
Then every key is sent once more, as by a client that lost its answer (the retry that a lost
record would run a second time), and each key's rows are counted: more than one is a
duplicate execution (``test_the_count_sees_a_key_run_twice`` shows that the count can see one).

Two faults: ``kill`` (the master dies with its replicas in sync: on loopback they receive a
write before the client has its answer) and ``lagging-replicas`` (the replicas stop receiving
the master's writes ``FAILOVER_LAG`` seconds, default 0.3, before it dies: the writes it
acknowledged in between are lost with it, as when replicas lag behind over a network).

- ``test_one_failover_with_the_replica_wait`` (services pass, < 60 s): WAIT 1, lagging
  replicas, 0 duplicates.
- ``-m failover`` (not run unless selected): ``FAILOVERS`` (default 20) failovers per fault
  with ``IDEMPOTENCY_REDIS_WAIT_REPLICAS = 1`` (must be 0 duplicates) and as many without
  (the duplicate rate measured, reported, never asserted): the figures of docs/reliability.md,
  written to var/reliability/redis-failover-wait-{0,1}-{kill,lagging-replicas}.json. One
  command repeats them:
  ``DATABASE_URL=postgres://... REDIS_URL=redis://... FAILOVERS=20 pytest -m failover -s tests/test_redis_failover.py``
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

from django_api_conventions.idempotency.stores.redis import KEY_PREFIX
from testproject.billing.models import Customer

from .figures import report
from .redis_topologies import SentinelSetup, cli

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.redis_topologies,
    pytest.mark.django_db(transaction=True),
]

FAILOVERS = int(os.environ.get("FAILOVERS", "20"))
CLIENTS = int(os.environ.get("FAILOVER_CLIENTS", "4"))
LAG = float(os.environ.get("FAILOVER_LAG", "0.3"))
FAULTS = {"kill": 0.0, "lagging-replicas": LAG}
PATH = "/idempotency/execution-log"


def use_redis_store(setup: SentinelSetup, settings: Any, wait_replicas: int) -> None:
    settings.API_CONVENTIONS = {
        **settings.API_CONVENTIONS,
        "IDEMPOTENCY_STORE": "redis",
        "IDEMPOTENCY_REDIS_URL": setup.url(),
        "IDEMPOTENCY_REDIS_WAIT_REPLICAS": wait_replicas,
        # A claim whose committing record was lost waits out its lease: keep it short.
        "IDEMPOTENCY_LEASE_SECONDS": 2,
    }


def send_until_answered(client: APIClient, key: str, answers: Counter[int | str], lock: threading.Lock) -> bool:
    """POST ``key`` until it is answered 201 (60 s at most): True when it was."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            response = client.generic(
                "POST",
                PATH,
                json.dumps({"tag": key}),
                content_type="application/json",
                headers={"Idempotency-Key": key},
            )
            status: int | str = response.status_code
        except Exception as exc:
            status = type(exc).__name__
        with lock:
            answers[status] += 1
        if status == 201:
            return True
        time.sleep(0.05)
    return False


def resend(run: str, keys: list[str], answers: Counter[int | str], lock: threading.Lock) -> int:
    """Every key once more, from ``CLIENTS`` threads: the keys that were not answered 201."""
    unanswered = [0]

    def resend_share(number: int) -> None:
        client = APIClient(headers={"X-Client-ID": f"failover-{run}"})
        for key in keys[number::CLIENTS]:
            if not send_until_answered(client, key, answers, lock):
                with lock:
                    unanswered[0] += 1
        connections.close_all()

    threads = [threading.Thread(target=resend_share, args=(n,), daemon=True) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    return unanswered[0]


def executions(run: str) -> Counter[str]:
    """Rows per key of ``run``: one per execution of the view."""
    return Counter(Customer.objects.filter(name__startswith=f"{run}-").values_list("name", flat=True))


def run_failovers(
    setup: SentinelSetup, settings: Any, failovers: int, wait_replicas: int, lag: float = 0.0
) -> dict[str, Any]:
    use_redis_store(setup, settings, wait_replicas)
    # The records of earlier runs would only lengthen the full resync of each restarted master.
    cli(setup.master_port(), "flushall")
    run = uuid.uuid4().hex[:8]
    stop = threading.Event()
    lock = threading.Lock()
    keys: list[str] = []
    answers: Counter[int | str] = Counter()
    unanswered = [0]

    def client_loop(number: int) -> None:
        client = APIClient(headers={"X-Client-ID": f"failover-{run}"})
        sequence = 0
        while not stop.is_set():
            sequence += 1
            key = f"{run}-{number}-{sequence}"
            with lock:
                keys.append(key)
            if not send_until_answered(client, key, answers, lock):  # retried even after stop
                with lock:
                    unanswered[0] += 1
        connections.close_all()  # this thread's: the test database is dropped at the end

    threads = [threading.Thread(target=client_loop, args=(n,), daemon=True) for n in range(CLIENTS)]
    started = time.monotonic()
    load_before = os.getloadavg()
    switches_before = setup.switches()
    for thread in threads:
        thread.start()
    try:
        for _ in range(failovers):
            time.sleep(1.0)  # load on the current master before it dies
            setup.fail_over(lag=lag)
        time.sleep(1.0)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=90)
    loaded = round(time.monotonic() - started, 1)
    switches = setup.switches() - switches_before
    resend_answers: Counter[int | str] = Counter()
    resend_unanswered = resend(run, keys, resend_answers, lock)
    counted = executions(run)
    duplicates = {key: count for key, count in counted.items() if count > 1}
    return {
        "failovers": failovers,
        "sentinel_switches": switches,
        "wait_replicas": wait_replicas,
        "lag_seconds": lag,
        "clients": CLIENTS,
        "keys": len(keys),
        "keys_executed": len(counted),
        "duplicate_keys": len(duplicates),
        "duplicate_rate": round(len(duplicates) / max(1, len(keys)), 6),
        "extra_executions": sum(count - 1 for count in duplicates.values()),
        "duplicates_seen": dict(sorted(duplicates.items())[:20]),
        "answers": dict(answers),
        "unanswered": unanswered[0],
        "resend_answers": dict(resend_answers),
        "resend_unanswered": resend_unanswered,
        "seconds_under_failovers": loaded,
        "seconds": round(time.monotonic() - started, 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "finished_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def test_the_count_sees_a_key_run_twice(redis_sentinel_topology: SentinelSetup, settings: Any) -> None:
    """What a failover losing a record does, without the failover: the record deleted on the
    master after the answer, the key sent again runs the view again, and the count shows 2."""
    use_redis_store(redis_sentinel_topology, settings, 0)
    run, lock, answers = uuid.uuid4().hex[:8], threading.Lock(), Counter[int | str]()
    keys = [f"{run}-0-{n}" for n in range(3)]
    client = APIClient(headers={"X-Client-ID": f"failover-{run}"})
    assert all(send_until_answered(client, key, answers, lock) for key in keys)
    master = redis_sentinel_topology.master().port
    lost = cli(master, "--scan", "--pattern", f"{KEY_PREFIX}*").split()
    assert lost, "no idempotency record on the master"
    cli(master, "del", *lost)  # the records of all 3 keys, lost as in a failover
    assert resend(run, keys, answers, lock) == 0
    assert executions(run) == dict.fromkeys(keys, 2), executions(run)


def test_one_failover_with_the_replica_wait(redis_sentinel_topology: SentinelSetup, settings: Any) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, 1, wait_replicas=1, lag=LAG)
    report("redis-failover-smoke", figures)
    assert figures["keys_executed"] == figures["keys"] and figures["duplicate_keys"] == 0, figures
    assert figures["unanswered"] == figures["resend_unanswered"] == 0, figures


@pytest.mark.failover
@pytest.mark.parametrize("fault", list(FAULTS))
def test_failovers_with_the_replica_wait_run_each_key_at_most_once(
    redis_sentinel_topology: SentinelSetup,
    settings: Any,
    fault: str,
) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, FAILOVERS, wait_replicas=1, lag=FAULTS[fault])
    report(f"redis-failover-wait-1-{fault}", figures)
    assert figures["duplicate_keys"] == 0, figures
    assert figures["keys_executed"] == figures["keys"], figures


@pytest.mark.failover
@pytest.mark.parametrize("fault", list(FAULTS))
def test_failovers_without_the_replica_wait_measured(
    redis_sentinel_topology: SentinelSetup,
    settings: Any,
    fault: str,
) -> None:
    figures = run_failovers(redis_sentinel_topology, settings, FAILOVERS, wait_replicas=0, lag=FAULTS[fault])
    report(f"redis-failover-wait-0-{fault}", figures)  # measured, not asserted: replication is asynchronous
