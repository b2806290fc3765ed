"""One conformance suite for every idempotency store (database on SQLite and PostgreSQL, directly and
through PgBouncer in transaction pooling mode, Redis: a server through each client, a Redis Cluster
and a Sentinel set-up)."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from django_api_conventions.idempotency.stores import ClaimOutcome, IdempotencyStore, StoredResponse
from django_api_conventions.idempotency.stores.database import DatabaseStore

from .pgbouncer import django_database_through
from .stores import REDIS_CACHE, REDIS_STORE_VARIANTS, REDIS_TOPOLOGY_VARIANTS, VIA_PGBOUNCER

pytestmark = pytest.mark.django_db(transaction=True)

RESPONSE = StoredResponse(201, {"Content-Type": "application/json", "Location": "/v2/x/1"}, b'{"id": "x\\u00e9"}\x00')
LONG = 60
SHORT = 0.3


#: django-valkey's cache, when it is installed (it is not a test dependency): its client is
#: valkey-py, whose exceptions are its own.
VALKEY = {"BACKEND": "django_valkey.cache.ValkeyCache"}
#: The Redis store on redis-py's own reply parser, written in Python, instead of hiredis.
PYTHON_PARSER = "redis-python-parser"


@pytest.fixture(
    params=[
        "database",
        pytest.param(VIA_PGBOUNCER, marks=[pytest.mark.postgres, pytest.mark.pgbouncer]),
        *(pytest.param(name, marks=pytest.mark.redis) for name in REDIS_STORE_VARIANTS),
        pytest.param("redis-valkey", marks=pytest.mark.redis),
        pytest.param(PYTHON_PARSER, marks=pytest.mark.redis),
        *(
            pytest.param(name, marks=[pytest.mark.redis, pytest.mark.redis_topologies])
            for name in REDIS_TOPOLOGY_VARIANTS
        ),
    ]
)
def store(request: pytest.FixtureRequest, settings: Any) -> Iterator[IdempotencyStore]:
    if request.param == "database":
        yield DatabaseStore()
        return
    if request.param in REDIS_TOPOLOGY_VARIANTS:
        # A Redis Cluster (3 masters, 3 replicas) or a Sentinel set-up, started from redis-server.
        from django_api_conventions.idempotency.stores.redis import RedisStore

        from .redis_topologies import SentinelSetup

        topology = request.getfixturevalue(REDIS_TOPOLOGY_VARIANTS[request.param])
        topology_store = RedisStore(url=topology.url() if isinstance(topology, SentinelSetup) else topology.url)
        yield topology_store
        topology_store.client.flushdb()
        return
    if request.param == VIA_PGBOUNCER:
        with django_database_through(request.getfixturevalue("pgbouncer")) as counted:
            yield DatabaseStore()
        assert counted(), "no transaction of the test went through PgBouncer"
        return
    from django_api_conventions.idempotency.stores.redis import RedisStore

    if request.param == "redis-valkey":
        pytest.importorskip("django_valkey", reason="django-valkey is not installed")
    if request.param == PYTHON_PARSER:
        import redis
        from redis._parsers import _RESP3Parser

        # The `redis` extra installs hiredis, which redis-py then uses to read every reply; without
        # it redis-py 8 reads them with this parser of its own (RESP3, its default protocol).
        redis_store = RedisStore(url=os.environ["REDIS_URL"])
        redis_store.client = redis.Redis.from_url(os.environ["REDIS_URL"], parser_class=_RESP3Parser)
        assert redis_store.client.connection_pool.connection_kwargs["parser_class"] is _RESP3Parser
    elif (cache := VALKEY if request.param == "redis-valkey" else REDIS_STORE_VARIANTS[request.param]) is None:
        redis_store = RedisStore(url=os.environ["REDIS_URL"])
    else:
        settings.CACHES = {**settings.CACHES, REDIS_CACHE: {**cache, "LOCATION": os.environ["REDIS_URL"]}}
        redis_store = RedisStore(REDIS_CACHE)
    yield redis_store
    redis_store.client.flushdb()


@pytest.fixture
def key() -> str:
    return f"key-{uuid.uuid4().hex}"


def claim(store: IdempotencyStore, key: str, fingerprint: str = "f1", lease: float = LONG, scope: str = "client:a"):
    return store.claim(scope, key, fingerprint, lease, 3600)


def test_first_claim_wins_and_the_next_is_in_flight(store: IdempotencyStore, key: str) -> None:
    first = claim(store, key)
    assert first.outcome is ClaimOutcome.CLAIMED and first.owner and not first.taken_over_from
    second = claim(store, key)
    assert second.outcome is ClaimOutcome.IN_FLIGHT
    assert 50 < second.lease_remaining <= LONG


def test_of_simultaneous_claims_of_one_key_one_wins(store: IdempotencyStore, key: str) -> None:
    if store.transactional and connections["default"].vendor == "sqlite":
        pytest.skip("the test database, in-memory SQLite, locks tables without waiting: threads need a server")
    threads = 12
    barrier = threading.Barrier(threads)
    outcomes: list[ClaimOutcome] = []

    def contend() -> None:
        try:
            barrier.wait(timeout=30)
            outcomes.append(claim(store, key).outcome)
        finally:
            connections.close_all()  # this thread's own connection

    workers = [threading.Thread(target=contend) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert Counter(outcomes) == {ClaimOutcome.CLAIMED: 1, ClaimOutcome.IN_FLIGHT: threads - 1}


def test_another_request_under_the_same_key_is_a_mismatch(store: IdempotencyStore, key: str) -> None:
    claim(store, key)
    assert claim(store, key, fingerprint="f2").outcome is ClaimOutcome.MISMATCH


def test_resolved_key_replays_exact_bytes(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    assert store.complete("client:a", key, owner, RESPONSE, 3600)
    replay = claim(store, key)
    assert replay.outcome is ClaimOutcome.RESOLVED and replay.response == RESPONSE
    assert claim(store, key, fingerprint="f2").outcome is ClaimOutcome.MISMATCH


def test_a_replay_says_how_long_the_record_is_still_kept(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    assert store.complete("client:a", key, owner, RESPONSE, 3600)
    replay = claim(store, key)
    assert replay.retention_remaining is not None and 3590 < replay.retention_remaining <= 3600


def test_scopes_never_see_each_other(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key, scope="client:a").owner
    store.complete("client:a", key, owner, RESPONSE, 3600)
    other = claim(store, key, fingerprint="f2", scope="client:b")
    assert other.outcome is ClaimOutcome.CLAIMED
    assert store.inspect("client:b", key).state == "started"  # type: ignore[union-attr]
    assert store.inspect("client:c", key) is None


def test_only_the_owner_writes(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    stranger = "0" * 32
    assert not store.complete("client:a", key, stranger, RESPONSE, 3600)
    assert not store.fail("client:a", key, stranger)
    assert not store.release("client:a", key, stranger)
    assert not store.renew("client:a", key, stranger, LONG)
    assert store.inspect("client:a", key).state == "started"  # type: ignore[union-attr]
    assert store.complete("client:a", key, owner, RESPONSE, 3600)
    assert not store.complete("client:a", key, owner, RESPONSE, 3600), "a resolved key is final"


def test_a_dead_workers_lease_is_taken_over_and_the_late_worker_cannot_overwrite(
    store: IdempotencyStore, key: str
) -> None:
    late = claim(store, key, lease=SHORT).owner
    time.sleep(SHORT + 0.1)
    newer = claim(store, key)
    assert newer.outcome is ClaimOutcome.CLAIMED and newer.taken_over_from == "started"
    newer_response = StoredResponse(201, {}, b"newer")
    assert not store.complete("client:a", key, late, RESPONSE, 3600)
    assert not store.fail("client:a", key, late)
    assert not store.release("client:a", key, late)
    assert store.complete("client:a", key, newer.owner, newer_response, 3600)
    assert not store.complete("client:a", key, late, RESPONSE, 3600)
    assert claim(store, key).response == newer_response


def test_a_failed_key_runs_again(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    assert store.fail("client:a", key, owner)
    assert store.inspect("client:a", key).state == "failed"  # type: ignore[union-attr]
    retry = claim(store, key)
    assert retry.outcome is ClaimOutcome.CLAIMED and retry.taken_over_from == "failed"
    assert claim(store, key, fingerprint="f2").outcome is ClaimOutcome.MISMATCH


def test_a_released_key_is_forgotten(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    assert store.release("client:a", key, owner)
    assert store.inspect("client:a", key) is None
    fresh = claim(store, key, fingerprint="f2")
    assert fresh.outcome is ClaimOutcome.CLAIMED and not fresh.taken_over_from


def test_a_renewed_lease_is_not_taken_over(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key, lease=SHORT).owner
    assert store.renew("client:a", key, owner, LONG)
    time.sleep(SHORT + 0.1)
    assert claim(store, key).outcome is ClaimOutcome.IN_FLIGHT


def test_inspect_shows_state_never_the_body(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    store.complete("client:a", key, owner, RESPONSE, 3600)
    record = store.inspect("client:a", key)
    assert record is not None and record.state == "resolved" and record.response_status == 201
    assert record.fingerprint == "f1"


def test_purge_deletes_only_expired_records(store: IdempotencyStore, key: str) -> None:
    owner = claim(store, key).owner
    store.complete("client:a", key, owner, RESPONSE, 1)
    kept = f"{key}-kept"
    store.complete("client:a", kept, claim(store, kept).owner, RESPONSE, 3600)
    time.sleep(1.1)
    if store.transactional:
        assert store.purge(batch_size=1, dry_run=True) == 1
        assert store.purge(batch_size=1, dry_run=False) == 1
    else:
        assert store.purge(batch_size=1, dry_run=False) == 0  # Redis expires records itself
    assert store.inspect("client:a", key) is None
    assert store.inspect("client:a", kept) is not None
    assert claim(store, key, fingerprint="f2").outcome is ClaimOutcome.CLAIMED


def test_purge_goes_through_batches_of_records_that_expired_at_the_same_instant(
    store: IdempotencyStore, key: str
) -> None:
    # Each batch starts at the expiry the one before ended with: records sharing it must not be
    # skipped, whichever batch they fall in.
    if not store.transactional:
        pytest.skip("Redis expires records itself")
    from django_api_conventions.models import IdempotencyRecord

    for index in range(9):
        owner = claim(store, f"{key}-{index}").owner
        store.complete("client:a", f"{key}-{index}", owner, RESPONSE, 3600 if index == 8 else 1)
    past = timezone.now() - timedelta(minutes=5)
    records = IdempotencyRecord.objects.filter(scope="client:a", key__startswith=key)
    records.filter(key__regex=r"-[0-2]$").update(expires_at=past, lease_expires_at=past)
    records.filter(key__regex=r"-[3-7]$").update(expires_at=past + timedelta(seconds=1), lease_expires_at=past)
    assert store.purge(batch_size=2, dry_run=True) == 8
    assert store.purge(batch_size=2, dry_run=False) == 8
    assert list(records.values_list("key", flat=True)) == [f"{key}-8"]


def test_the_database_store_ignores_routers(settings: Any, key: str) -> None:
    # A router that sends queries anywhere else would break the store if it were consulted:
    # a replica lagging behind the primary would answer "no such key" to a retry.
    settings.DATABASE_ROUTERS = ["tests.routers.EverythingToTheReplica"]
    store = DatabaseStore()
    owner = claim(store, key).owner
    assert claim(store, key).outcome is ClaimOutcome.IN_FLIGHT
    assert store.complete("client:a", key, owner, RESPONSE, 3600)
    assert claim(store, key).response == RESPONSE
