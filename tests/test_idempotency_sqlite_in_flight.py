"""On SQLite, a request that reuses a key in flight gets 409 with Retry-After, never a 503.

SQLite has one writer at a time, and the first request holds the write lock while its view runs
(the payment gateway takes PAYMENT_GATEWAY_DELAY_MS). A claim that waited for that lock got
"database is locked" after the lock timeout, answered 503 ``idempotency-store-unavailable``
although the store was only busy with the very request the key names. The example service runs
under gunicorn on a SQLite file with a lock timeout (SQLITE_LOCK_TIMEOUT) shorter than the
gateway's delay.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .example_service import Service, example_service
from .http import HTTPResult, send

LOCK_TIMEOUT_SECONDS = 1
GATEWAY_DELAY_MS = 2500  # longer than the lock timeout: the old claim waited, then answered 503


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder: Path = tmp_path_factory.mktemp("sqlite-in-flight")
    with example_service(
        "sqlite", folder, PAYMENT_GATEWAY_DELAY_MS=str(GATEWAY_DELAY_MS), SQLITE_LOCK_TIMEOUT=str(LOCK_TIMEOUT_SECONDS)
    ) as running:
        yield running


def call(service: Service, method: str, path: str, *, key: str | None = None, json_body: object = None) -> HTTPResult:
    headers = {"X-Client-ID": "sqlite-in-flight"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return send(service.url, method, path, headers=headers, json_body=json_body)


def new_invoice_payments(service: Service) -> str:
    user = call(service, "POST", "/v2/users", json_body={"email": f"{uuid.uuid4().hex}@example.com", "name": "A"})
    assert user.status == 201, user.body
    invoice = call(
        service, "POST", "/v2/invoices", json_body={"user_id": user.json()["id"], "amount_due": 100, "currency": "eur"}
    )
    assert invoice.status == 201, invoice.body
    return f"/v2/invoices/{invoice.json()['id']}/payments"


def assert_in_use(answer: HTTPResult) -> None:
    assert answer.status == 409, (answer.status, answer.body)
    assert answer.json()["type"].endswith("/problems/idempotency-key-in-use")
    assert int(answer.header("Retry-After") or 0) >= 1


def test_a_key_in_flight_answers_409_at_once_even_past_the_lock_timeout(service: Service) -> None:
    path = new_invoice_payments(service)
    key, first = uuid.uuid4().hex, []
    payment = {"amount": 5, "currency": "eur"}
    runner = threading.Thread(target=lambda: first.append(call(service, "POST", path, key=key, json_body=payment)))
    runner.start()
    time.sleep(0.5)  # the first request has claimed the key and holds the write lock
    for _ in range(2):  # at once, and again once the lock timeout has passed
        started = time.monotonic()
        answer = call(service, "POST", path, key=key, json_body=payment)
        assert_in_use(answer)
        assert time.monotonic() - started < LOCK_TIMEOUT_SECONDS
        time.sleep(LOCK_TIMEOUT_SECONDS + 0.2)
    runner.join()
    assert first[0].status == 201, first[0].body
    replay = call(service, "POST", path, key=key, json_body=payment)
    assert (replay.status, replay.header("X-Cache-Lookup")) == (201, "HIT")
    # The key with another body: refused as a reuse.
    assert call(service, "POST", path, key=key, json_body={**payment, "amount": 6}).status == 422


def test_two_payments_started_together_answer_201_and_409(service: Service) -> None:
    path = new_invoice_payments(service)
    key, answers = uuid.uuid4().hex, []
    barrier = threading.Barrier(2)

    def pay() -> None:
        barrier.wait()
        answers.append(call(service, "POST", path, key=key, json_body={"amount": 5, "currency": "eur"}))

    threads = [threading.Thread(target=pay) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer.status for answer in answers) == [201, 409], [a.body for a in answers]
    assert_in_use(next(answer for answer in answers if answer.status == 409))
