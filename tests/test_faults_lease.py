"""Faults: a lease that passes while its worker still runs, across two gunicorn workers.

The first attempt is slow (``X-Test-Delay``, outside the fingerprint); its lease passes, a retry
in another worker takes the key over and finishes first. When the slow attempt ends, the owner
token refuses its write: its changes are rolled back, it answers 409
``idempotency-lease-expired``, and every later retry replays the newer owner's answer.
(tests/test_idempotency_concurrency.py covers the other order: the late worker ends first.)
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest

from django_api_conventions.idempotency import get_store
from testproject.billing.models import Customer

from .figures import report
from .http import HTTPResult, send
from .servers import gunicorn

pytestmark = [pytest.mark.faults, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

LEASE_SECONDS = 1
SLOW_SECONDS = 3.0


def post(url: str, client_id: str, key: str, name: str, delay: float = 0, **test_headers: str) -> HTTPResult:
    return send(
        url,
        "POST",
        "/idempotency/header-delayed",
        body=json.dumps({"name": name}),
        headers={
            "Content-Type": "application/json",
            "Idempotency-Key": key,
            "X-Client-ID": client_id,
            "X-Test-Delay": str(delay),
            **test_headers,
        },
    )


def in_background(call: Any) -> tuple[threading.Thread, dict[str, HTTPResult]]:
    answer: dict[str, HTTPResult] = {}
    thread = threading.Thread(target=lambda: answer.setdefault("r", call()))
    thread.start()
    return thread, answer


def wait_until_claimed(client_id: str, key: str) -> None:
    store = get_store()
    deadline = time.monotonic() + 15
    while store.inspect(f"client:{client_id}", key) is None:
        assert time.monotonic() < deadline, "the request never claimed its key"
        time.sleep(0.01)


def test_a_late_worker_ending_after_the_new_owner_cannot_store_over_it(example_store: str) -> None:
    client_id, key, name = f"lease-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex, uuid.uuid4().hex
    with gunicorn(
        2,
        preload=True,
        DJANGO_SETTINGS_MODULE="tests.settings",
        IDEMPOTENCY_STORE=example_store,
        IDEMPOTENCY_LEASE_SECONDS=str(LEASE_SECONDS),
    ) as server:
        slow, late = in_background(lambda: post(server.url, client_id, key, name, SLOW_SECONDS))
        wait_until_claimed(client_id, key)
        time.sleep(LEASE_SECONDS + 0.3)
        newer = post(server.url, client_id, key, name)
        assert newer.status == 201 and newer.header("X-Cache-Lookup") == "MISS", newer.body
        assert slow.is_alive(), "the slow attempt must end after the newer owner"
        slow.join(timeout=30)
        replay = post(server.url, client_id, key, name)

    stale = late["r"]
    assert stale.status == 409 and stale.header("Content-Type") == "application/problem+json"
    assert stale.json()["type"].endswith("/idempotency-lease-expired")
    assert Customer.objects.filter(name=name).count() == 1, "the late attempt's row was rolled back"
    assert replay.status == 201 and replay.header("X-Cache-Lookup") == "HIT" and replay.body == newer.body
    report(
        f"faults-late-worker-{example_store}",
        {
            "store": example_store,
            "late_attempt": stale.status,
            "newer_owner": newer.status,
            "replay": replay.header("X-Cache-Lookup"),
            "executions_kept": 1,
        },
    )


def test_a_late_worker_that_fails_cannot_fail_the_new_owners_key(example_store: str) -> None:
    """The late attempt ends with a 5xx while the new owner still runs: its "fail" must not reach
    the new owner's record, or a third attempt would run alongside the new owner."""
    client_id, key, name = f"lease-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex, uuid.uuid4().hex
    with gunicorn(
        3,
        preload=True,
        DJANGO_SETTINGS_MODULE="tests.settings",
        IDEMPOTENCY_STORE=example_store,
        IDEMPOTENCY_LEASE_SECONDS=str(LEASE_SECONDS),
    ) as server:
        failing, failed = in_background(
            lambda: post(server.url, client_id, key, name, SLOW_SECONDS, **{"X-Test-Fail": "1"})
        )
        wait_until_claimed(client_id, key)
        time.sleep(LEASE_SECONDS + 0.3)
        owner, owned = in_background(
            lambda: post(server.url, client_id, key, name, SLOW_SECONDS, **{"X-Test-Renew": "1"})
        )
        failing.join(timeout=30)
        third = post(server.url, client_id, key, name)
        owner.join(timeout=30)
        replay = post(server.url, client_id, key, name)

    assert failed["r"].status == 503, "the late attempt's own answer"
    # Redis: 409, the key is in use. Database: the new owner's renewals are in its uncommitted
    # transaction, so the third attempt tries to take over, waits on the record's row lock, and
    # replays the new owner's answer once it commits. Never a second run.
    in_use = third.status == 409 and third.json()["type"].endswith("/idempotency-key-in-use")
    waited = third.status == 201 and third.header("X-Cache-Lookup") == "HIT" and third.body == owned["r"].body
    assert in_use or waited, f"the new owner still ran, no one else may: {third.status} {third.body[:200]!r}"
    assert owned["r"].status == 201 and owned["r"].header("X-Cache-Lookup") == "MISS"
    assert Customer.objects.filter(name=name).count() == 1
    assert replay.header("X-Cache-Lookup") == "HIT" and replay.body == owned["r"].body
