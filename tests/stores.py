"""The idempotency stores a test runs on: the ``store_name`` fixture's parameters and set-up.

Every test that takes ``store_name`` runs on the database store and on each variant of the
Redis store, one per kind of client it supports (tests/conftest.py). The protocol, concurrency
and conformance modules also run the database store through a real PgBouncer in transaction
pooling mode (tests/pgbouncer.py) by declaring their own ``store_name`` with
:data:`STORES_AND_PGBOUNCER`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from .pgbouncer import django_database_through

#: The cache alias the cache variants add to CACHES.
REDIS_CACHE = "idempotency"
#: Variant -> the CACHES entry it uses (LOCATION added: REDIS_URL), or None for a client of the
#: store's own, from IDEMPOTENCY_REDIS_URL.
REDIS_STORE_VARIANTS: dict[str, dict[str, Any] | None] = {
    "redis": {"BACKEND": "django_redis.cache.RedisCache"},
    "redis-django-cache": {"BACKEND": "django.core.cache.backends.redis.RedisCache"},
    "redis-url": None,
}
#: Variants whose client comes from IDEMPOTENCY_REDIS_URL naming a topology the tests start
#: themselves from redis-server (tests/redis_topologies.py), not REDIS_URL: variant -> fixture.
REDIS_TOPOLOGY_VARIANTS: dict[str, str] = {
    "redis-cluster": "redis_cluster_topology",
    "redis-sentinel": "redis_sentinel_topology",
}
#: The database store, with every connection of the test through PgBouncer.
VIA_PGBOUNCER = "database-via-pgbouncer"

STORES = [
    "database",
    *(pytest.param(name, marks=pytest.mark.redis) for name in REDIS_STORE_VARIANTS),
    *(pytest.param(name, marks=[pytest.mark.redis, pytest.mark.redis_topologies]) for name in REDIS_TOPOLOGY_VARIANTS),
]
STORES_AND_PGBOUNCER = [*STORES, pytest.param(VIA_PGBOUNCER, marks=[pytest.mark.postgres, pytest.mark.pgbouncer])]


def use_store(settings: Any, variant: str, request: pytest.FixtureRequest | None = None) -> Iterator[str]:
    """Point this process's settings at ``variant``; empty the Redis store's records after the test."""
    if variant == "database":
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "database"}
        yield variant
        return
    from django_api_conventions.idempotency.stores.redis import RedisStore

    from .redis_topologies import SentinelSetup

    overrides: dict[str, Any] = {"IDEMPOTENCY_STORE": "redis"}
    if variant in REDIS_TOPOLOGY_VARIANTS:
        assert request is not None
        topology = request.getfixturevalue(REDIS_TOPOLOGY_VARIANTS[variant])  # started on first use
        overrides["IDEMPOTENCY_REDIS_URL"] = topology.url() if isinstance(topology, SentinelSetup) else topology.url
    elif (cache := REDIS_STORE_VARIANTS[variant]) is None:
        overrides["IDEMPOTENCY_REDIS_URL"] = os.environ["REDIS_URL"]
    else:
        settings.CACHES = {**settings.CACHES, REDIS_CACHE: {**cache, "LOCATION": os.environ["REDIS_URL"]}}
        overrides["IDEMPOTENCY_CACHE"] = REDIS_CACHE
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, **overrides}
    store = RedisStore()  # bound now: the test may point the settings elsewhere
    yield variant
    store.client.flushdb()


def configure_store(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Set the store for ``request.param``; yields the store's name ("database" via PgBouncer)."""
    if request.param == VIA_PGBOUNCER:
        server = request.getfixturevalue("pgbouncer")
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "database"}
        with django_database_through(server):
            yield "database"
        return
    yield from use_store(settings, request.param, request)
