"""The idempotency stores a test runs on: the ``store_name`` fixture's parameters and set-up.

Every test that takes ``store_name`` runs on the database store and on Redis (tests/conftest.py).
The protocol, concurrency and conformance modules also run the database store through a real
PgBouncer in transaction pooling mode (tests/pgbouncer.py) by declaring their own ``store_name``
with :data:`STORES_AND_PGBOUNCER`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import caches

from .pgbouncer import django_database_through

REDIS_CACHE = "idempotency"
#: The database store, with every connection of the test through PgBouncer.
VIA_PGBOUNCER = "database-via-pgbouncer"

STORES = ["database", pytest.param("redis", marks=pytest.mark.redis)]
STORES_AND_PGBOUNCER = [*STORES, pytest.param(VIA_PGBOUNCER, marks=[pytest.mark.postgres, pytest.mark.pgbouncer])]


def configure_store(request: pytest.FixtureRequest, settings: Any) -> Iterator[str]:
    """Set ``IDEMPOTENCY_STORE`` for ``request.param``; yields the store's name ("database" via PgBouncer)."""
    if request.param == VIA_PGBOUNCER:
        server = request.getfixturevalue("pgbouncer")
        settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "IDEMPOTENCY_STORE": "database"}
        with django_database_through(server):
            yield "database"
        return
    overrides: dict[str, Any] = {"IDEMPOTENCY_STORE": request.param}
    if request.param == "redis":
        settings.CACHES = {**settings.CACHES, REDIS_CACHE: {"BACKEND": "django_redis.cache.RedisCache",
                                                           "LOCATION": os.environ["REDIS_URL"]}}
        overrides["IDEMPOTENCY_CACHE"] = REDIS_CACHE
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, **overrides}
    yield str(request.param)
    if request.param == "redis":
        caches[REDIS_CACHE].clear()
