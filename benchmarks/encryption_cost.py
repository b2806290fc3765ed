"""What ``IDEMPOTENCY_ENCRYPTION_KEYS`` costs a keyed request, in the worker's CPU time.

``python -m benchmarks.encryption_cost [--requests 200] [--rounds 20]``: one DRF view
(``IdempotencyMixin``, an answer of about 1 KB of JSON with a ``Location``), run in-process
through Django's handler on an in-memory SQLite with the database store, and with the Redis
store too when ``REDIS_URL`` is set. A fresh-key ``POST`` and a replay are timed with the keys
off and on, in alternating rounds; the table prints medians per request and what the keys add,
beside :func:`~django_api_conventions.idempotency.encryption.seal` and ``unseal`` of the same
answer alone. CPU time of the thread, not wall time: other processes on the machine, and the
round trips to the store, which the keys do not change, stay out of it.
"""

from __future__ import annotations

import argparse
import base64
import gc
import json
import os
import statistics
import time
import uuid
from typing import Any

from .in_memory import configure

KEYS = [base64.urlsafe_b64encode(os.urandom(32)).decode()]
ANSWER = {
    "id": "ord_01J9Z6Q4W8",
    "status": "pending",
    "currency": "eur",
    "items": [{"sku": f"SKU-{n:04d}", "quantity": n, "unit_price": 1250 + n, "name": f"Item {n}"} for n in range(12)],
    "shipping_address": {"name": "Ada Lovelace", "line1": "12 St James's Square", "city": "London", "zip": "SW1Y"},
}


def _order_view() -> Any:
    from rest_framework.request import Request
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from django_api_conventions.idempotency import IdempotencyMixin

    class OrderView(IdempotencyMixin, APIView):
        authentication_classes: list[Any] = []
        permission_classes: list[Any] = []

        def post(self, request: Request) -> Response:
            return Response(ANSWER, status=201, headers={"Location": f"/orders/{ANSWER['id']}"})

    return OrderView.as_view()


def __getattr__(name: str) -> Any:  # the URLconf's patterns, built once Django is set up
    if name == "urlpatterns":
        from django.urls import path

        return [path("orders", _order_view())]
    raise AttributeError(name)


def _time_requests(count: int, store: dict[str, Any], keys: list[str], *, replay: bool) -> float:
    """Median microseconds of ``count`` keyed POSTs: each a fresh key, or replays of one key."""
    from django.test import Client, override_settings

    client, key, times = Client(), str(uuid.uuid4()), []
    gc.collect()  # a collection lands on whichever request triggers it: none in the timed ones
    gc.disable()
    with override_settings(API_CONVENTIONS={**store, "IDEMPOTENCY_ENCRYPTION_KEYS": keys}):
        if replay:
            client.post("/orders", {}, content_type="application/json", headers={"Idempotency-Key": key})
        for _ in range(count):
            headers = {"Idempotency-Key": key if replay else str(uuid.uuid4())}
            start = time.thread_time_ns()
            response = client.post("/orders", {}, content_type="application/json", headers=headers)
            times.append(time.thread_time_ns() - start)
            assert response.status_code == 201 and response["Idempotent-Replayed"] == str(replay).lower()
    gc.enable()
    return statistics.median(times) / 1000


def _time_sealing(count: int) -> tuple[float, float]:
    """Median CPU microseconds of ``seal`` and of ``unseal`` of the answer."""
    from django.test import override_settings

    from django_api_conventions.idempotency.encryption import seal, unseal
    from django_api_conventions.idempotency.stores import StoredResponse

    headers = {"Content-Type": "application/json", "Location": "/orders/1"}
    answer = StoredResponse(201, headers, json.dumps(ANSWER).encode())
    sealing, unsealing = [], []
    with override_settings(API_CONVENTIONS={"IDEMPOTENCY_ENCRYPTION_KEYS": KEYS}):
        for _ in range(count):
            start = time.thread_time_ns()
            sealed = seal("client:bench", "key", answer)
            middle = time.thread_time_ns()
            unseal("client:bench", "key", sealed)
            sealing.append(middle - start)
            unsealing.append(time.thread_time_ns() - middle)
    return statistics.median(sealing) / 1000, statistics.median(unsealing) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per scenario and round")
    parser.add_argument("--rounds", type=int, default=20)
    options = parser.parse_args(argv)
    configure(__name__)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    short = {"IDEMPOTENCY_LEASE_SECONDS": 30, "IDEMPOTENCY_RETENTION_SECONDS": 60}  # Redis forgets them soon
    stores = {"database": {**short, "IDEMPOTENCY_STORE": "database"}}
    if os.environ.get("REDIS_URL"):
        stores["redis"] = {**short, "IDEMPOTENCY_STORE": "redis", "IDEMPOTENCY_REDIS_URL": os.environ["REDIS_URL"]}
    print(f"Median CPU µs per request, {options.rounds} rounds of {options.requests}, in-process")
    print(f"{'store':<9} {'request':<10} {'keys off':>9} {'keys on':>9} {'added':>16}")
    for name, store in stores.items():
        for replay in (False, True):
            runs: dict[bool, list[float]] = {False: [], True: []}
            for keys in ([], KEYS):  # warm: imports, caches, the first statements
                _time_requests(200, store, keys, replay=replay)
            for round_number in range(options.rounds):
                for encrypted in (False, True) if round_number % 2 else (True, False):  # neither always first
                    keys = KEYS if encrypted else []
                    runs[encrypted].append(_time_requests(options.requests, store, keys, replay=replay))
            off, on = statistics.median(runs[False]), statistics.median(runs[True])
            added = f"{on - off:+.0f} ({(on - off) / off:+.1%})"
            print(f"{name:<9} {'replay' if replay else 'fresh key':<10} {off:>9.0f} {on:>9.0f} {added:>16}")
    size = len(json.dumps(ANSWER))
    sealing, unsealing = _time_sealing(options.requests * options.rounds)
    print(f"the {size}-byte answer alone: seal (fresh key) {sealing:.1f} µs, unseal (replay) {unsealing:.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
