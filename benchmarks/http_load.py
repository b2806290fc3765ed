"""The load generator: keep-alive ``http.client`` connections, each in its own process.

It runs in processes of its own (``multiprocessing`` with ``spawn``), never in the server's, so
the client's CPU is not the server's; a gunicorn sync worker closes the connection after each
answer and ``http.client`` reconnects on its own, as wrk would.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

BENCH_USER = "usr_bench"
#: The invoice every benchmark payment pays (its amount due is never reached).
BENCH_INVOICE = "inv_bench"
#: Modes that POST a payment with a fresh key: mode -> path. ``async_payment`` is the example's
#: adrf async view, ``payment`` the sync view of the same payments.
PAYMENT_PATHS = {
    "payment": f"/v2/invoices/{BENCH_INVOICE}/payments",
    "async_payment": f"/v2/invoices/{BENCH_INVOICE}/async-payments",
}
#: The floors (benchmarks/floor_views.py, the protocol's minimum written by hand): mode -> path;
#: ``floor_fresh`` with a fresh key, ``floor_replay`` with the key prepared for it.
FLOOR_PATHS = {
    "floor_fresh": "/v2/bench-floor/orders",
    "floor_replay": "/v2/bench-floor/replay",
}


def floor_replay_key(run_id: str) -> str:
    return f"floor-replay-{run_id}"


@dataclass(frozen=True)
class LoadSpec:
    """What one client sends for ``seconds``: ``modes`` taken in turn, request by request, in a
    shuffled order each turn, so that a busy machine slows every mode alike.

    A mode is ``plain`` (no key), ``fresh_key`` (a key never sent before) or ``replay`` (the
    key of an earlier, resolved request), all three an order; or a payment with a fresh key,
    ``payment`` or ``async_payment`` (:data:`PAYMENT_PATHS`); or a floor (:data:`FLOOR_PATHS`).
    """

    port: int
    modes: tuple[str, ...]
    run_id: str
    seconds: float
    client_index: int = 0
    #: A new connection for every request, as a gunicorn sync worker imposes. The WSGI-beside-ASGI
    #: rounds use it for both servers: under ``uvicorn --workers 2`` on this benchmark's VM a
    #: kept-alive connection waited about 45 ms more per request (a delayed ACK), a fresh one not.
    reconnect: bool = False


def _headers(client: str, key: str | None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "X-Client-ID": client}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def post_once(
    connection: http.client.HTTPConnection, body: bytes, headers: dict[str, str], path: str = "/v2/orders"
) -> tuple[int, str]:
    connection.request("POST", path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    return response.status, response.getheader("X-Cache-Lookup") or ""


def run_client(spec: LoadSpec) -> dict[str, Any]:
    """Send requests one after the other for ``spec.seconds``; latencies in milliseconds, by mode."""
    connection = http.client.HTTPConnection("127.0.0.1", spec.port, timeout=30)
    body = json.dumps({"user_id": BENCH_USER}).encode()
    payment = json.dumps({"amount": 1, "currency": "eur"}).encode()
    client = f"bench-{spec.run_id}"
    nonce = uuid.uuid4().hex[:12]  # fresh keys never repeat, whatever the round or process
    latencies: dict[str, list[float]] = {mode: [] for mode in spec.modes}
    statuses: dict[str, Counter[str]] = {mode: Counter() for mode in spec.modes}
    turn = list(spec.modes)
    shuffler = random.Random(nonce)
    deadline = time.perf_counter() + spec.seconds
    number = 0
    while time.perf_counter() < deadline:
        shuffler.shuffle(turn)
        for mode in turn:
            if mode == "plain":
                key = None
            elif mode == "replay":
                key = f"replay-{spec.run_id}"
            elif mode == "floor_replay":
                key = floor_replay_key(spec.run_id)
            else:
                key = f"fresh-{nonce}-{number}"
            number += 1
            path = PAYMENT_PATHS.get(mode)
            started = time.perf_counter()
            if spec.reconnect:
                connection.close()  # http.client connects again on the next request
            if path is None:
                status, lookup = post_once(connection, body, _headers(client, key), FLOOR_PATHS.get(mode, "/v2/orders"))
            else:
                status, lookup = post_once(connection, payment, _headers(client, f"pay-{nonce}-{number}"), path)
            latencies[mode].append((time.perf_counter() - started) * 1000)
            statuses[mode][f"{status} {lookup}".strip()] += 1
    connection.close()
    return {mode: {"latencies_ms": latencies[mode], "statuses": dict(statuses[mode])} for mode in spec.modes}


def run_duplicates(port: int, run_id: str, users: list[str], barrier: Any, results: Any, index: int) -> None:
    """One of eight clients that send the same keyed POST at the same moment, key after key.

    Each key posts an order for its own user, so counting that user's orders afterwards counts
    how many times the key's request ran.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    client = f"bench-{run_id}"
    statuses: Counter[str] = Counter()
    for user in users:
        body = json.dumps({"user_id": user}).encode()
        barrier.wait()
        status, lookup = post_once(connection, body, _headers(client, f"burst-{run_id}-{user}"))
        statuses[f"{status} {lookup}".strip()] += 1
    connection.close()
    results.put((index, dict(statuses)))
