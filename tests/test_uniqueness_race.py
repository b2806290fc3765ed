"""Two requests racing to break a uniqueness rule: one succeeds, the others get 409 or 422, never
500. Real threads, real HTTP, real PostgreSQL connections (the serializer's check passes for
every racer; only the database's unique constraint sees the race)."""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from django_api_conventions.idempotency import get_store
from testproject.billing.models import Customer

from .http import HTTPResult, send

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 24
ROUNDS = 20


def create_user(base_url: str, email: str, client_id: str, key: str | None) -> HTTPResult:
    headers = {"Content-Type": "application/json", "X-Client-ID": client_id}
    if key is not None:
        headers["Idempotency-Key"] = key
    return send(base_url, "POST", "/v2/users", body=json.dumps({"email": email, "name": "Racer"}), headers=headers)


def race(base_url: str, email: str, *, keyed: bool) -> list[HTTPResult]:
    barrier = threading.Barrier(RACERS)

    def run(index: int) -> HTTPResult:
        barrier.wait(timeout=30)
        # Half the racers shout the address: uniqueness does not depend on case.
        spelled = email.upper() if index % 2 else email
        return create_user(base_url, spelled, f"racer-{index}", uuid.uuid4().hex if keyed else None)

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        return list(pool.map(run, range(RACERS)))


def test_racing_for_one_new_email_is_one_201_and_409_or_422_for_the_others(live_server: Any, store_name: str) -> None:
    for round_number in range(ROUNDS):
        email = f"race-{round_number}-{uuid.uuid4().hex[:8]}@example.com"
        # Every other round carries an Idempotency-Key per request: the store must not keep a 409.
        results = race(live_server.url, email, keyed=bool(round_number % 2))
        statuses = Counter(r.status for r in results)
        assert statuses[201] == 1, (round_number, statuses)
        assert set(statuses) <= {201, 409, 422}, (round_number, statuses, [r.body for r in results if r.status >= 500])
        for result in results:
            if result.status == 409:
                problem = result.json()
                assert result.header("Content-Type") == "application/problem+json"
                assert problem["type"].endswith("/conflict"), problem
                assert problem["errors"][0]["pointer"] == "/email", problem
                assert result.header("Retry-After") == "1"
            elif result.status == 422:
                assert result.json()["errors"][0]["pointer"] == "/email"
        assert Customer.objects.filter(email__iexact=email).count() == 1


def test_a_409_from_a_race_is_not_the_keys_stored_answer(live_server: Any, store_name: str) -> None:
    """A keyed racer that lost gets its definitive answer on retry: the 409 was not stored."""
    for _round in range(ROUNDS):
        email = f"keyed-{uuid.uuid4().hex[:8]}@example.com"
        keys = [uuid.uuid4().hex for _ in range(RACERS)]
        barrier = threading.Barrier(RACERS)

        def run(index: int, email: str = email, keys: list[str] = keys, barrier: threading.Barrier = barrier) -> Any:
            barrier.wait(timeout=30)
            return index, create_user(live_server.url, email, f"keyed-{index}", keys[index])

        with ThreadPoolExecutor(max_workers=RACERS) as pool:
            lost = [index for index, result in pool.map(run, range(RACERS)) if result.status == 409]
        if lost:
            break
    else:
        pytest.skip("no request lost the race to the database in any round (the validator caught them all)")
    index = lost[0]
    assert get_store().inspect(f"client:keyed-{index}", keys[index]) is None, "the 409 released the key"
    retry = create_user(live_server.url, email, f"keyed-{index}", keys[index])
    assert retry.status == 422 and retry.header("X-Cache-Lookup") == "MISS", retry.body
    assert get_store().inspect(f"client:keyed-{index}", keys[index]) is not None
