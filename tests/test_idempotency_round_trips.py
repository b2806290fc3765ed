"""Round trips to the store on each keyed request: the database store on PostgreSQL claims a new
key in one statement, which answers a replay too, and the relaxed durability of
the claim never leaks into the session; the Redis store proves its lease before the commit only
once half of it has passed."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from django_api_conventions.idempotency.stores import ClaimOutcome, StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore
from testproject.billing.models import Customer, Invoice

pytestmark = pytest.mark.django_db(transaction=True)
postgres_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's one-statement claim")


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


@pytest.mark.postgres
@postgres_only
def test_a_new_key_costs_one_statement_and_its_replay_one() -> None:
    store, key = DatabaseStore(), f"key-{uuid.uuid4().hex}"
    with CaptureQueriesContext(connection) as claiming:
        claim = store.claim("scope", key, "fp", 60, 3600)
    assert claim.outcome is ClaimOutcome.CLAIMED
    assert len(claiming.captured_queries) == 1, claiming.captured_queries
    assert "set_config('synchronous_commit', 'off', true)" in claiming.captured_queries[0]["sql"]
    assert store.complete("scope", key, claim.owner, StoredResponse(201, {"Location": "/x"}, b"{}"), 3600)
    with CaptureQueriesContext(connection) as replaying:
        replay = store.claim("scope", key, "fp", 60, 3600)
    assert replay.outcome is ClaimOutcome.RESOLVED
    assert replay.response == StoredResponse(201, {"Location": "/x"}, b"{}")
    # The INSERT that finds the key taken answers the record that holds it.
    assert len(replaying.captured_queries) == 1, replaying.captured_queries
    assert synchronous_commit() == "on", "the relaxed durability stayed in the claim's own transaction"


@pytest.mark.postgres
@postgres_only
@pytest.mark.parametrize("prepare_threshold", [None, 2])
def test_the_claim_and_the_stored_answer_are_prepared_where_the_connection_allows_it(
    prepare_threshold: int | None,
) -> None:
    """With Django's ``OPTIONS["prepare_threshold"]`` (here set on the open connection) the
    hot path's statements are prepared once they ran that often; without it (Django's default,
    safe behind a transaction pooler) nothing is."""
    store = DatabaseStore()
    connection.close()  # a new session: none of the statements earlier tests prepared
    connection.ensure_connection()
    connection.connection.prepare_threshold = prepare_threshold
    try:
        with CaptureQueriesContext(connection) as logged:
            for _ in range(3):
                key = f"key-{uuid.uuid4().hex}"
                claim = store.claim("scope", key, "fp", 60, 3600)
                assert store.complete("scope", key, claim.owner, StoredResponse(201, {}, b"{}"), 3600)
                replay = store.claim("scope", key, "fp", 60, 3600)
                assert replay.response == StoredResponse(201, {}, b"{}")
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            prepared = [row[0] for row in cursor.fetchall()]
    finally:
        connection.connection.prepare_threshold = None
        connection.close()  # its prepared statements go with it
    assert len(logged.captured_queries) == 9, "Django's query log still sees every statement"
    if prepare_threshold is None:
        assert prepared == []
    else:
        assert sorted(statement.split()[0] for statement in prepared) == ["UPDATE", "WITH"], prepared


@pytest.mark.postgres
@postgres_only
def test_a_claim_that_waited_for_the_holders_commit_reads_the_holder_again() -> None:
    """The claim's statement cannot see a record committed while its INSERT waited for it (the
    statement's snapshot is older): the claim asks again, and answers that record."""
    import threading

    from django.db import connections

    store, key = DatabaseStore(), f"key-{uuid.uuid4().hex}"
    holder = connections.create_connection("default")  # a second session: the other request
    holder.set_autocommit(False)
    with holder.cursor() as cursor:  # the other request's claim, not yet committed
        cursor.execute(
            "INSERT INTO django_api_conventions_idempotencyrecord (scope, key, state, fingerprint, "
            "response_status, response_headers, response_body, lease_owner, lease_expires_at, expires_at, "
            "created_at, updated_at) VALUES ('scope', %s, 'resolved', 'fp', 201, '{}', %s, 'other', now(), "
            "now() + interval '1 hour', now(), now())",
            [key, b"{}"],
        )
    answers: list[Any] = []
    waiting = threading.Thread(target=lambda: answers.append(_claim_in_a_new_session(store, key)))
    waiting.start()
    waiting.join(1)
    assert waiting.is_alive(), "the claim's INSERT waits for the uncommitted record"
    holder.commit()
    holder.close()
    waiting.join(10)
    claim, statements = answers[0]
    assert claim.outcome is ClaimOutcome.RESOLVED
    assert claim.response == StoredResponse(201, {}, b"{}")
    assert statements == 2, "the first statement saw no record; the second, with a new snapshot, did"


def _claim_in_a_new_session(store: DatabaseStore, key: str) -> tuple[Any, int]:
    try:
        with CaptureQueriesContext(connection) as claiming:
            claim = store.claim("scope", key, "fp", 60, 3600)
        return claim, len(claiming.captured_queries)
    finally:
        connection.close()


@pytest.mark.postgres
@postgres_only
def test_inside_a_transaction_the_claim_keeps_its_durability() -> None:
    store, key = DatabaseStore(), f"key-{uuid.uuid4().hex}"
    with transaction.atomic(), CaptureQueriesContext(connection) as claiming:
        assert store.claim("scope", key, "fp", 60, 3600).outcome is ClaimOutcome.CLAIMED
        assert synchronous_commit() == "on"
    assert not any(
        "synchronous_commit TO OFF" in query["sql"] or "set_config" in query["sql"]
        for query in claiming.captured_queries
    )
    assert store.claim("scope", key, "fp", 60, 3600).outcome is ClaimOutcome.IN_FLIGHT


@pytest.mark.redis
@pytest.mark.parametrize("store_name", ["redis"], indirect=True)
@pytest.mark.parametrize(("gateway_delay_ms", "renewals"), [(0, 0), (700, 1)])
def test_the_redis_store_renews_before_the_commit_only_past_half_the_lease(
    store_name: str, settings: Any, monkeypatch: pytest.MonkeyPatch, gateway_delay_ms: int, renewals: int
) -> None:
    from django_api_conventions.idempotency.stores.redis import RedisStore

    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_LEASE_SECONDS": 1}
    settings.PAYMENT_GATEWAY_DELAY_MS = gateway_delay_ms
    calls: list[str] = []
    renew, prepare = RedisStore.renew, RedisStore.prepare

    def counted_renew(self: RedisStore, *args: Any) -> bool:
        calls.append("renew")
        return renew(self, *args)

    def counted_prepare(self: RedisStore, *args: Any) -> bool:
        calls.append("prepare")
        return prepare(self, *args)

    monkeypatch.setattr(RedisStore, "renew", counted_renew)
    monkeypatch.setattr(RedisStore, "prepare", counted_prepare)
    user = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="R")
    invoice = Invoice.objects.create(user=user, amount_due=1000, currency="eur")
    client = APIClient(headers={"X-Client-ID": "renewals"})
    response = client.post(
        f"/v2/invoices/{invoice.pk}/payments",
        {"amount": 100, "currency": "eur"},
        format="json",
        headers={"Idempotency-Key": uuid.uuid4().hex},
    )
    assert response.status_code == 201
    # On PostgreSQL the step before the commit always records the committing response (the
    # commit marker); elsewhere it is a renewal, and only past half the lease.
    assert calls == (["prepare"] if connection.vendor == "postgresql" else ["renew"] * renewals)


def test_a_short_renewal_brings_the_renewal_before_the_commit_back() -> None:
    import time

    from django_api_conventions.idempotency.leases import KeyedRequest

    store, key = DatabaseStore(), f"key-{uuid.uuid4().hex}"
    claim = store.claim("scope", key, "fp", 60, 3600)
    keyed = KeyedRequest(store, "scope", key, claim.owner, 60, lease_deadline=time.monotonic() + 60)
    assert not keyed.lease_half_used()
    keyed.renew_lease(seconds=5)  # the view asked for less than the lease: 5 seconds are left
    assert keyed.lease_half_used()
    keyed.renew_lease()
    assert not keyed.lease_half_used()
