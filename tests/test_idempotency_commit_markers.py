"""The Redis store's committing keys: after a lease passes, PostgreSQL says whether the commit happened.

Real transactions on PostgreSQL, real Redis; the dead worker is played by simply never
completing the key (test_faults_worker_kills.py kills real gunicorn workers after the commit).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connection, transaction
from django.http import HttpResponse
from django.test.utils import CaptureQueriesContext

from django_api_conventions.idempotency.commit_markers import TransactionStatus, transaction_marker, transaction_status
from django_api_conventions.idempotency.stores import ClaimOutcome, StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore

pytestmark = [pytest.mark.django_db(transaction=True)]

RESPONSE = StoredResponse(201, {"Content-Type": "application/json"}, b'{"id": 1}')
SHORT = 0.2
LONG = 30.0  # a lease no slow test run outlives


@pytest.fixture
def store(settings: Any) -> Iterator[Any]:
    from django_api_conventions.idempotency.stores.redis import RedisStore

    settings.CACHES = {
        **settings.CACHES,
        "idempotency": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": os.environ["REDIS_URL"]},
    }
    yield RedisStore("idempotency")
    caches["idempotency"].clear()


def committing_key(store: Any, marker: str, lease: float = SHORT) -> tuple[str, str]:
    key = uuid.uuid4().hex
    owner = store.claim("client:a", key, "f", lease, 3600).owner
    assert store.prepare("client:a", key, owner, RESPONSE, marker, "default", lease)
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


@pytest.mark.postgres
@pytest.mark.redis
def test_a_committed_key_answers_at_once_though_its_owner_has_not_settled_it(store: Any) -> None:
    with transaction.atomic():
        marker = transaction_marker("default")
        key, owner = committing_key(store, marker, lease=LONG)
    # Committed, the lease still running, the owner not yet past sending its answer: the retry
    # asks the database instead of answering 409, and settles the key itself.
    replayed = store.claim("client:a", key, "f", SHORT, 3600)
    assert replayed.outcome is ClaimOutcome.RESOLVED and replayed.response == RESPONSE
    assert store.inspect("client:a", key).state == "resolved"
    assert not store.settle("client:a", key, owner, 3600), "settled once, by the retry"


@pytest.mark.postgres
@pytest.mark.redis
def test_a_rolled_back_key_stays_its_owners_until_its_lease_passes(store: Any) -> None:
    with transaction.atomic():
        marker = transaction_marker("default")
        key, _owner = committing_key(store, marker, lease=LONG)
        transaction.set_rollback(True)
    in_flight = store.claim("client:a", key, "f", LONG, 3600)
    assert in_flight.outcome is ClaimOutcome.IN_FLIGHT and 0 < in_flight.lease_remaining <= LONG
    assert store.inspect("client:a", key).state == "committing", "taken over once its lease passes"


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.parametrize("store_name", ["redis"], indirect=True)
def test_the_key_is_settled_once_the_answer_is_sent(store_name: str, caplog: pytest.LogCaptureFixture) -> None:
    """A server closes a response after its last byte: the key is marked resolved then, off the
    client's path; a retry between the two is answered the stored response all the same."""
    from django.core.handlers.base import BaseHandler
    from django.test import RequestFactory

    from django_api_conventions.clients.client_ids import get_client_id
    from django_api_conventions.idempotency.stores.redis import RedisStore
    from tests.faults import Customer

    handler = BaseHandler()
    handler.load_middleware()
    key, tag = uuid.uuid4().hex, f"settled-{uuid.uuid4().hex}"

    def keyed_post() -> Any:
        request = RequestFactory().post(
            "/idempotency/execution-log",
            {"tag": tag},
            content_type="application/json",
            headers={"Idempotency-Key": key, "X-Client-ID": "settle-after-send"},
        )
        return request, handler.get_response(request)  # as a WSGI server has it, before close()

    request, first = keyed_post()
    assert first.status_code == 201 and first["X-Cache-Lookup"] == "MISS"
    scope, redis_store = str(get_client_id(request)), RedisStore()
    assert redis_store.inspect(scope, key).state == "committing", "not settled before the answer is sent"
    with ThreadPoolExecutor(1) as other_worker:  # a retry served by another worker meanwhile
        _request, retry = other_worker.submit(keyed_post).result()
        other_worker.submit(retry.close).result()
    assert (retry.status_code, retry["X-Cache-Lookup"], retry.content) == (201, "HIT", first.content)
    assert redis_store.inspect(scope, key).state == "resolved", "the retry settled it, asking PostgreSQL"
    with caplog.at_level("DEBUG", logger="django_api_conventions.idempotency"):
        first.close()
    assert [record.getMessage() for record in caplog.records if record.levelname != "INFO"] == [
        "Idempotency key already settled (by a retry, asking the database) or expired"
    ]
    assert Customer.objects.filter(name=tag).count() == 1

    # Whichever response the server closes: a middleware may have answered another object.
    key = uuid.uuid4().hex
    _request, alone = keyed_post()
    assert redis_store.inspect(scope, key).state == "committing"
    HttpResponse().close()
    assert redis_store.inspect(scope, key).state == "resolved"
    alone.close()

    # A response never closed (a test calling a view through a RequestFactory): the next keyed
    # request of the thread settles it first.
    key = uuid.uuid4().hex
    _request, _never_closed = keyed_post()
    assert redis_store.inspect(scope, key).state == "committing"
    with CaptureQueriesContext(connection) as queries:
        _request, replayed = keyed_post()
    assert replayed["X-Cache-Lookup"] == "HIT" and redis_store.inspect(scope, key).state == "resolved"
    assert not [query for query in queries.captured_queries if "txid_status" in query["sql"]], (
        "settled by its own thread first, not found committing"
    )


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.parametrize("store_name", ["redis"], indirect=True)
def test_under_asgi_the_key_is_settled_before_the_answer(store_name: str) -> None:
    """Django's ASGI handler never closes the response of a client that left mid-request: the
    key is marked resolved right after the commit there, not left to a retry."""
    from asgiref.sync import async_to_sync
    from django.core.handlers.asgi import ASGIHandler
    from django.test import AsyncRequestFactory

    from django_api_conventions.clients.client_ids import get_client_id
    from django_api_conventions.idempotency.stores.redis import RedisStore

    handler = ASGIHandler()
    key = uuid.uuid4().hex
    request = AsyncRequestFactory().post(
        "/idempotency/execution-log",
        {"tag": f"asgi-{key}"},
        content_type="application/json",
        headers={"Idempotency-Key": key, "X-Client-ID": "settle-under-asgi"},
    )
    response = async_to_sync(handler.get_response_async)(request)  # never closed, as after a disconnect
    assert response.status_code == 201 and response["X-Cache-Lookup"] == "MISS"
    assert RedisStore().inspect(str(get_client_id(request)), key).state == "resolved"
