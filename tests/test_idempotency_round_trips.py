"""The database store on PostgreSQL claims a key in one statement: one round trip for a new key
and one for a replay, and the relaxed durability of the claim never leaks into the session."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from django_api_conventions.idempotency.stores import ClaimOutcome, StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's one-statement claim")


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return str(cursor.fetchone()[0])


def test_a_new_key_and_its_replay_each_cost_one_statement() -> None:
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
    assert len(replaying.captured_queries) == 1, replaying.captured_queries
    assert synchronous_commit() == "on", "the relaxed durability stayed in the claim's own transaction"


def test_inside_a_transaction_the_claim_keeps_its_durability() -> None:
    store, key = DatabaseStore(), f"key-{uuid.uuid4().hex}"
    with transaction.atomic(), CaptureQueriesContext(connection) as claiming:
        assert store.claim("scope", key, "fp", 60, 3600).outcome is ClaimOutcome.CLAIMED
        assert synchronous_commit() == "on"
    assert not any("synchronous_commit TO OFF" in query["sql"] or "set_config" in query["sql"]
                   for query in claiming.captured_queries)
    assert store.claim("scope", key, "fp", 60, 3600).outcome is ClaimOutcome.IN_FLIGHT
