"""The Redis store's committing keys: after a lease passes, PostgreSQL says whether the commit happened.

Real transactions on PostgreSQL, real Redis; the dead worker is played by simply never
completing the key (test_faults_worker_kills.py kills real gunicorn workers after the commit).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection, transaction

from django_api_conventions.idempotency.commit_markers import TransactionStatus, transaction_marker, transaction_status
from django_api_conventions.idempotency.stores import ClaimOutcome, StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore

pytestmark = [pytest.mark.django_db(transaction=True)]

RESPONSE = StoredResponse(201, {"Content-Type": "application/json"}, b'{"id": 1}')
SHORT = 0.2


@pytest.fixture
def store(settings: Any) -> Iterator[Any]:
    from django_api_conventions.idempotency.stores.redis import RedisStore

    settings.CACHES = {**settings.CACHES, "idempotency": {"BACKEND": "django_redis.cache.RedisCache",
                                                          "LOCATION": os.environ["REDIS_URL"]}}
    yield RedisStore("idempotency")
    caches["idempotency"].clear()


def committing_key(store: Any, marker: str) -> tuple[str, str]:
    key = uuid.uuid4().hex
    owner = store.claim("client:a", key, "f", SHORT, 3600).owner
    assert store.prepare("client:a", key, owner, RESPONSE, marker, "default", SHORT)
    return key, owner


def test_no_marker_outside_postgresql_or_a_transaction() -> None:
    assert transaction_marker("default") is None, "autocommit: no transaction to ask about"
    if connection.vendor != "postgresql":
        with transaction.atomic():
            assert transaction_marker("default") is None


def test_the_database_store_prepares_nothing() -> None:
    with pytest.raises(NotImplementedError):
        DatabaseStore().prepare("client:a", "k", "owner", RESPONSE, "1", "default", 1)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_committed_key_answers_its_response_after_the_lease(store: Any) -> None:
    with transaction.atomic():
        marker = transaction_marker("default")
        assert marker is not None
        key, _owner = committing_key(store, marker)
        assert store.claim("client:a", key, "f", SHORT, 3600).outcome is ClaimOutcome.IN_FLIGHT, "lease running"
    assert transaction_status("default", marker) is TransactionStatus.COMMITTED
    time.sleep(SHORT + 0.1)
    replayed = store.claim("client:a", key, "f", SHORT, 3600)
    assert replayed.outcome is ClaimOutcome.RESOLVED and replayed.response == RESPONSE
    assert store.inspect("client:a", key).state == "resolved"
    assert store.claim("client:a", key, "other", SHORT, 3600).outcome is ClaimOutcome.MISMATCH


@pytest.mark.postgres
@pytest.mark.redis
def test_a_rolled_back_key_is_taken_over(store: Any) -> None:
    with transaction.atomic():
        marker = transaction_marker("default")
        key, late_owner = committing_key(store, marker)
        transaction.set_rollback(True)
    assert transaction_status("default", marker) is TransactionStatus.ABORTED
    time.sleep(SHORT + 0.1)
    taken = store.claim("client:a", key, "f", 60, 3600)
    assert taken.outcome is ClaimOutcome.CLAIMED and taken.taken_over_from == "committing"
    assert not store.complete("client:a", key, late_owner, RESPONSE, 3600), "the dead owner writes nothing"
    assert store.complete("client:a", key, taken.owner, RESPONSE, 3600)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_commit_still_in_progress_keeps_the_key_in_flight(store: Any) -> None:
    with transaction.atomic():
        marker = transaction_marker("default")
        key, owner = committing_key(store, marker)
        time.sleep(SHORT + 0.1)
        assert transaction_status("default", marker) is TransactionStatus.IN_PROGRESS
        assert store.claim("client:a", key, "f", SHORT, 3600).outcome is ClaimOutcome.IN_FLIGHT
    assert store.complete("client:a", key, owner, RESPONSE, 3600), "its owner completes it after the commit"
    assert store.claim("client:a", key, "f", SHORT, 3600).outcome is ClaimOutcome.RESOLVED


@pytest.mark.postgres
@pytest.mark.redis
def test_only_the_owner_prepares(store: Any) -> None:
    key = uuid.uuid4().hex
    store.claim("client:a", key, "f", 60, 3600)
    assert not store.prepare("client:a", key, "not-the-owner", RESPONSE, "1", "default", 60)
    assert store.inspect("client:a", key).state == "started"
