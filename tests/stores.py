"""The variants of the Redis store the tests run on: one per kind of client it supports."""

from __future__ import annotations

from typing import Any

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
